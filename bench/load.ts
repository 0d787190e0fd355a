// Benchmark 4 — load cost: how much later an OpenCode instance is ready with ralph-loop than without.
//
// OpenCode loads plugins per instance (project directory), lazily, on the first request for that
// directory; GET /config answers only once the instance has booted, plugins included. So timed is
// that first GET /config for a new project whose opencode.json lists ralph-loop, or no plugin:
// 1. first boot in a fresh server — a new `opencode serve` (started in a plugin-less base project,
//    the harness's readiness probe) per run, so the plugin's module is imported inside the timing,
//    as when a user starts OpenCode in their project;
// 2. warm boot — further projects on one running server (the module is imported already: what is
//    left is the factory, its config files, and OpenCode's own handling of one more plugin).
// 3. the plugin alone — in a new process of the Bun inside the OpenCode binary: import and factory,
//    and until a hook has run (the plugin may load part of itself in the background).
// Runs alternate with and without the plugin, in a rotating order; medians are reported. The
// process start itself (spawn → "listening", 2–5 s here and ±1 s between runs) loads no project
// plugin and is left out: its noise is larger than the goal.
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { packageDir, writeProject } from "../test/harness/harness.js"
import { MockModel } from "../test/harness/mock-model.js"
import {
  isolatedEnv,
  opencodeBinary,
  startOpencodeServer,
  type OpencodeServer,
} from "../test/harness/opencode-server.js"
import { median, QUICK, round } from "./util.js"

export interface BootTimes {
  runs: number
  withoutMs: number
  withMs: number
  deltaMs: number
  withoutAll: number[]
  withAll: number[]
}

export interface LoadResult {
  firstBoot: BootTimes
  /** The same first boot with a plugin that does nothing: OpenCode's own cost of loading any plugin. */
  firstBootMinimal: { runs: number; withMs: number; deltaMs: number; withAll: number[] }
  warmBoot: BootTimes
  /**
   * The plugin alone in a new process of OpenCode's own Bun (BUN_BE_BUN=1), medians: import and
   * server() returned (factoryMs), and a hook has run (readyMs). Undefined if that mode is unavailable.
   */
  bunLoad?: { runs: number; factoryMs: number; readyMs: number }
  opencodeVersion: string
}

export async function runLoadBench(log: (line: string) => void): Promise<LoadResult> {
  const firstRuns = QUICK ? 2 : 8
  const warmRuns = QUICK ? 3 : 20
  const mock = await MockModel.start()
  const root = mkdtempSync(join(tmpdir(), "ralph-bench-load-"))
  const env = isolatedEnv(root)
  const first = { with: [] as number[], without: [] as number[], minimal: [] as number[] }
  const minimalPlugin = join(packageDir(), "bench", "minimal-plugin.js")
  const warm = { with: [] as number[], without: [] as number[] }
  let count = 0
  const project = (label: string, withPlugin: boolean, minimal = false) => {
    const name = `${label}-${minimal ? "minimal" : withPlugin ? "with" : "without"}-${count++}`
    const dir = join(root, "projects", name)
    writeProject(
      dir,
      env,
      mock,
      name,
      minimal ? { withPlugin: false, opencodeConfig: { plugin: [minimalPlugin] } } : { withPlugin },
    )
    return dir
  }
  /** Times the boot of a new project's instance: its first GET /config. */
  const boot = async (server: OpencodeServer, dir: string, withPlugin: boolean): Promise<number> => {
    const start = performance.now()
    const res = await fetch(`${server.url}/config?directory=${encodeURIComponent(dir)}`, {
      signal: AbortSignal.timeout(60_000),
    })
    const ms = performance.now() - start
    if (!res.ok) throw new Error(`GET /config answered ${res.status}`)
    const config = (await res.json()) as { plugin?: unknown[] }
    if ((config.plugin?.length ?? 0) !== (withPlugin ? 1 : 0))
      throw new Error(`${dir}: unexpected plugin list ${JSON.stringify(config.plugin)}`)
    return ms
  }
  const order = (r: number) => (r % 2 ? [true, false] : [false, true])
  const base = project("base", false)
  try {
    for (let r = 0; r < firstRuns; r += 1) {
      const kinds = (
        r % 3 === 0
          ? ["without", "minimal", "with"]
          : r % 3 === 1
            ? ["with", "without", "minimal"]
            : ["minimal", "with", "without"]
      ) as Array<"with" | "without" | "minimal">
      for (const kind of kinds) {
        const dir = project("first", kind === "with", kind === "minimal")
        const server = await startOpencodeServer({ cwd: base, env, readyDirectory: base })
        try {
          first[kind].push(await boot(server, dir, kind !== "without"))
        } finally {
          await server.stop()
        }
      }
      log(`load: first boot in a fresh server ${r + 1}/${firstRuns}`)
    }

    const server = await startOpencodeServer({ cwd: base, env, readyDirectory: base })
    try {
      for (const withPlugin of [true, false]) await boot(server, project("warmup", withPlugin), withPlugin) // imports the module
      for (let r = 0; r < warmRuns; r += 1) {
        for (const withPlugin of order(r)) {
          const dir = project("warm", withPlugin)
          warm[withPlugin ? "with" : "without"].push(await boot(server, dir, withPlugin))
          await fetch(`${server.url}/instance/dispose?directory=${encodeURIComponent(dir)}`, {
            method: "POST",
            signal: AbortSignal.timeout(30_000),
          }).catch(() => undefined)
        }
      }
      log(`load: warm boot, ${warmRuns} runs each`)
    } finally {
      await server.stop()
    }
  } finally {
    await mock.close()
    rmSync(root, { recursive: true, force: true })
  }
  const summary = (runs: number, s: { with: number[]; without: number[] }): BootTimes => ({
    runs,
    withoutMs: round(median(s.without), 1),
    withMs: round(median(s.with), 1),
    deltaMs: round(median(s.with) - median(s.without), 1),
    withoutAll: s.without.map((v) => round(v, 1)),
    withAll: s.with.map((v) => round(v, 1)),
  })
  const bun = bunLoadTimes(QUICK ? 3 : 10)
  log(`load: the plugin alone in OpenCode's Bun, ${bun.length} runs`)
  return {
    firstBoot: summary(firstRuns, first),
    firstBootMinimal: {
      runs: firstRuns,
      withMs: round(median(first.minimal), 1),
      deltaMs: round(median(first.minimal) - median(first.without), 1),
      withAll: first.minimal.map((v) => round(v, 1)),
    },
    warmBoot: summary(warmRuns, warm),
    bunLoad:
      bun.length === 0
        ? undefined
        : {
            runs: bun.length,
            factoryMs: round(median(bun.map((b) => b.factoryMs)), 1),
            readyMs: round(median(bun.map((b) => b.readyMs)), 1),
          },
    opencodeVersion: opencodeVersion(),
  }
}

/**
 * The plugin's own code, without OpenCode around it: in a new process of the Bun inside the
 * OpenCode binary (a Bun-compiled binary runs as plain Bun with BUN_BE_BUN=1), the time to import
 * dist/index.js and get the hooks from `server()`, and the time until a hook has run (whatever the
 * plugin loads in the background is loaded then). Much less noisy than a boot.
 */
function bunLoadTimes(runs: number): Array<{ factoryMs: number; readyMs: number }> {
  const root = mkdtempSync(join(tmpdir(), "ralph-bench-import-"))
  try {
    const script = join(root, "load.mjs")
    const entry = pathToFileURL(join(packageDir(), "dist", "index.js")).href
    writeFileSync(
      script,
      [
        "const start = performance.now()",
        `const { default: plugin } = await import(${JSON.stringify(entry)})`,
        "const ok = () => Promise.resolve({ data: {}, error: undefined, response: { ok: true, status: 200 } })",
        "const client = new Proxy({}, { get: () => new Proxy({}, { get: () => ok }) })",
        `const hooks = await plugin.server({ client, directory: ${JSON.stringify(root)}, worktree: ${JSON.stringify(root)}, project: { id: "bench" }, serverUrl: new URL("http://127.0.0.1:1") }, {})`,
        "const factoryMs = performance.now() - start",
        'await hooks["experimental.chat.system.transform"]?.({ sessionID: "ses_none", model: {} }, { system: [] })',
        "console.log(JSON.stringify({ factoryMs, readyMs: performance.now() - start }))",
        "process.exit(0)",
      ].join("\n"),
    )
    const env = { ...isolatedEnv(root), BUN_BE_BUN: "1" }
    return Array.from({ length: runs }, () => {
      const out = execFileSync(opencodeBinary(), [script], { env, cwd: root, encoding: "utf8", timeout: 30_000 })
      const { factoryMs, readyMs } = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as {
        factoryMs: number
        readyMs: number
      }
      return { factoryMs: round(factoryMs, 1), readyMs: round(readyMs, 1) }
    })
  } catch {
    return []
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

/** `opencode --version` of the binary the harness runs, with HOME and XDG in a throwaway folder. */
export function opencodeVersion(): string {
  const root = mkdtempSync(join(tmpdir(), "ralph-bench-version-"))
  try {
    return execFileSync(opencodeBinary(), ["--version"], {
      env: isolatedEnv(root),
      encoding: "utf8",
      timeout: 30_000,
    }).trim()
  } catch {
    return "unknown"
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
