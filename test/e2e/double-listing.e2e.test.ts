// ralph-loop listed twice for one project (issue 37): a path in opencode.json as docs/install.md
// offers, and then `ralph-loop install` (project or --global), or the two listings install used to
// leave, or a symlink to the package beside its path. OpenCode loads each as a module of its own;
// one copy runs the loop, the other stays out and says so once in OpenCode's log. Counted: the
// model's prompts and summary requests, the progress log's entries, the loop rules in the prompt.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { parse } from "jsonc-parser"
import { afterEach, describe, expect, it } from "vitest"
import {
  packageDir,
  startHarness,
  writeProject,
  type Harness,
  type Project,
  type ProjectOptions,
} from "../harness/harness.js"
import { isolatedEnv, opencodeBinary } from "../harness/opencode-server.js"
import { waitForLoopEnd, waitForToast } from "./helpers.js"

// `opencode plugin` reads the npm registry, then OpenCode boots and runs a loop of three iterations.
const SLOW = 300_000
const SPEC = `ralph-loop@file:${packageDir()}`
const CLI = join(packageDir(), "dist", "cli", "main.js")
const SCRIPT = {
  main: [{ text: "working on it" }, { text: "still working" }, { text: "All finished. <promise>DONE</promise>" }],
  compaction: (r: { index: number }) => ({ text: `SUMMARY-${r.index + 1}: a.txt written` }),
}

const harnesses: Harness[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.stop()))
})

async function harness(): Promise<Harness> {
  const h = await startHarness()
  harnesses.push(h)
  return h
}

/** `ralph-loop install …` on the harness's machine (its HOME and XDG folders), `opencode` on PATH. */
function install(h: Harness, ...args: string[]): string {
  const binDir = join(h.root, "bin")
  mkdirSync(binDir, { recursive: true })
  if (!existsSync(join(binDir, "opencode"))) symlinkSync(opencodeBinary(), join(binDir, "opencode"))
  const env = { ...isolatedEnv(h.root), PATH: [binDir, dirname(process.execPath), "/usr/bin", "/bin"].join(":") }
  const result = spawnSync(process.execPath, [CLI, "install", ...args], { env, encoding: "utf8", timeout: 180_000 })
  const out = `${result.stdout}${result.stderr}`
  expect(result.status, out).toBe(0)
  return out
}

/** The project's files as `h.project` writes them, before its instance boots (install must run first). */
function writeFirst(h: Harness, name: string, options: ProjectOptions = {}): string {
  const dir = join(h.root, "projects", name)
  writeProject(dir, isolatedEnv(h.root), h.mock, name, options)
  return dir
}

const progressEntries = (project: Project) =>
  readFileSync(join(project.dir, ".opencode/ralph-loop/progress.md"), "utf8")
    .split(/^---$/m)
    .slice(1)
    .filter((entry) => entry.trim())

/** Runs a three-iteration loop and checks that one engine ran it. */
async function loopRunsOnce(_h: Harness, project: Project): Promise<void> {
  const session = await project.newSession()
  await project.command(session, "ralph", "build the widget")
  await waitForToast(project, /^Ralph · done/)
  await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
  await project.waitForIdle()

  const main = project.requests("main")
  expect(main).toHaveLength(3) // one prompt per iteration
  expect(project.requests("compaction")).toHaveLength(2) // one summary per restart
  expect(progressEntries(project)).toHaveLength(3) // one progress entry per iteration
  // The rules once in the first prompt, the task once.
  expect(main[0]?.system.split("Ralph loop mode")).toHaveLength(2)
  expect(main[0]?.lastUser.split("build the widget")).toHaveLength(2)
  expect(project.loops()).toHaveLength(1)
  expect(project.events.toasts().filter((t) => t.title?.startsWith("Ralph · done"))).toHaveLength(1)
}

/** How often OpenCode's log says a copy stayed out for `dir`. */
const deferrals = (h: Harness, dir: string) =>
  h.server.output().split(`ralph-loop is listed more than once for ${dir}:`).length - 1

describe("ralph-loop listed twice for one project: one engine", () => {
  it(
    "listed by path in opencode.json, then `ralph-loop install`: install leaves the listing, the loop prompts once per iteration",
    async () => {
      const h = await harness()
      const dir = writeFirst(h, "path-then-install")
      const out = install(h, "--project", dir)
      expect(out).toContain(`already listed in ${join(dir, "opencode.json")}`)
      expect(existsSync(join(dir, ".opencode", "opencode.json"))).toBe(false)

      const project = await h.project("path-then-install", { script: SCRIPT })
      await loopRunsOnce(h, project)
      expect(deferrals(h, dir)).toBe(0)
    },
    SLOW,
  )

  it(
    "listed by path in the project, then `ralph-loop install --global`: both copies load, the later one stays out and says so once",
    async () => {
      const h = await harness()
      const dir = writeFirst(h, "path-then-global")
      install(h, "--global")
      const globalDir = join(h.root, "home", ".config", "opencode")
      const globalFile = ["opencode.json", "opencode.jsonc"]
        .map((name) => join(globalDir, name))
        .find((file) => existsSync(file))
      expect((parse(readFileSync(globalFile as string, "utf8")) as { plugin?: unknown[] }).plugin).toEqual([SPEC])
      // OpenCode reads its global config once per process.
      await h.restartServer("SIGTERM")

      const project = await h.project("path-then-global", { script: SCRIPT })
      await loopRunsOnce(h, project)
      expect(deferrals(h, dir)).toBe(1)
    },
    SLOW,
  )

  it(
    "a path in opencode.json and the file: spec in .opencode/opencode.json (what install used to leave): one engine",
    async () => {
      const h = await harness()
      const dir = writeFirst(h, "path-and-spec")
      writeFileSync(join(dir, ".opencode", "opencode.json"), JSON.stringify({ plugin: [SPEC] }))

      const project = await h.project("path-and-spec", { script: SCRIPT })
      await loopRunsOnce(h, project)
      expect(deferrals(h, dir)).toBe(1)
    },
    SLOW,
  )

  it(
    "the package's path and a symlink to it in one plugin list: one engine",
    async () => {
      const h = await harness()
      const link = join(h.root, "ralph-loop-link")
      symlinkSync(packageDir(), link)
      const options: ProjectOptions = { script: SCRIPT, opencodeConfig: { plugin: [packageDir(), link] } }
      const project = await h.project("path-and-link", options)
      await loopRunsOnce(h, project)
      expect(deferrals(h, project.dir)).toBe(1)
    },
    SLOW,
  )
})
