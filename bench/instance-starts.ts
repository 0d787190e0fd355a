// Benchmark — OpenCode instance starts, one process or a process each (issue 40, item 2). N new
// OpenCode instances (N = 2, 4; each a project directory with ralph-loop, as a slot's worktree is)
// take their first turn, timed end to end from "go" to every first model request answered:
// - one process: sessions made in N directories of one `opencode serve` that runs already (its own
//   directory's instance booted, as the user's OpenCode is when a plan starts);
// - a process each: N `opencode serve` started at "go", one per directory, each making its session
//   there — their starts are in the time.
// Also each process's start (spawn → listening and its directory's instance booted) and memory
// (VmRSS of /proc/<pid>/status once every first turn is answered). Rounds alternate the modes; the
// scripted model answers at once, so the time is OpenCode's and the machine's alone.
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { writeProject } from "../test/harness/harness.js"
import { MockModel } from "../test/harness/mock-model.js"
import { isolatedEnv, type OpencodeServer, startOpencodeServer } from "../test/harness/opencode-server.js"
import { waitUntil } from "../test/harness/wait.js"
import { median, QUICK, round } from "./util.js"

export type StartMode = "one process" | "a process each"

export interface InstanceStartsCase {
  instances: number
  mode: StartMode
  /** Go → every first model request answered, ms: median over rounds, and each round's. */
  goToAnsweredMs: number
  rounds: number[]
  /** A process each: spawn → ready (listening, its instance booted), ms, median over every process started. */
  processStartMs?: number
  /** VmRSS once every first turn is answered, MiB: each process's (median over rounds), and their sum. */
  rssPerProcessMiB: number
  rssTotalMiB: number
  /** One process: its VmRSS before "go" (MiB), so the N instances' share shows. */
  rssBeforeMiB?: number
  load: number[]
}

export interface InstanceStartsResult {
  cores: number
  cases: InstanceStartsCase[]
}

/** VmRSS of a process, MiB (/proc/<pid>/status, in kB there). */
export function vmRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))
  const kb = Number(line?.slice("VmRSS:".length).trim().split(/\s+/)[0])
  return round(kb / 1024, 1)
}

interface Sample {
  goToAnsweredMs: number
  starts: number[]
  rss: number[]
  rssBefore?: number
}

export async function runInstanceStartsBench(log: (line: string) => void): Promise<InstanceStartsResult> {
  const mock = await MockModel.start()
  const root = mkdtempSync(join(tmpdir(), "ralph-bench-starts-"))
  const env = isolatedEnv(root)
  const samples = new Map<string, { sample: Sample; load: number }[]>()
  let projectCount = 0
  const newDirs = (count: number) =>
    Array.from({ length: count }, () => {
      projectCount += 1
      const name = `p${projectCount}`
      const dir = join(root, "projects", name)
      writeProject(dir, env, mock, name)
      return { dir, name }
    })
  /** Makes a session in `dir` on `url` and sends it a prompt (its first turn). */
  const firstTurn = async (url: string, dir: string) => {
    const client = createOpencodeClient({ baseUrl: url, directory: dir })
    const { data, error } = await client.session.create({ body: { title: "bench" } })
    if (!data) throw new Error(`session.create failed in ${dir}: ${JSON.stringify(error)}`)
    const sent = await client.session.promptAsync({
      path: { id: data.id },
      body: { parts: [{ type: "text", text: "Say hello." }] },
    })
    if (sent.error) throw new Error(`prompt failed in ${dir}: ${JSON.stringify(sent.error)}`)
  }
  const answered = async (names: string[], go: number) => {
    const first = (name: string) => mock.requests(name, "main")[0]
    await waitUntil(() => names.every((n) => first(n)?.endedAt !== undefined), "every first turn answered", 180_000)
    return Math.max(...names.map((n) => (first(n)?.endedAt ?? go) - go))
  }

  const oneProcess = async (count: number): Promise<Sample> => {
    const [base] = newDirs(1)
    const servers: OpencodeServer[] = []
    try {
      if (!base) throw new Error("no base project")
      servers.push(await startOpencodeServer({ cwd: base.dir, env, readyDirectory: base.dir }))
      const server = servers[0] as OpencodeServer
      const projects = newDirs(count)
      const rssBefore = vmRssMiB(server.pid)
      const go = Date.now()
      await Promise.all(projects.map((p) => firstTurn(server.url, p.dir)))
      const ms = await answered(
        projects.map((p) => p.name),
        go,
      )
      return { goToAnsweredMs: ms, starts: [], rss: [vmRssMiB(server.pid)], rssBefore }
    } finally {
      for (const s of servers) await s.stop()
    }
  }

  const processEach = async (count: number): Promise<Sample> => {
    const projects = newDirs(count)
    const servers: OpencodeServer[] = []
    try {
      const go = Date.now()
      // All settled before going on: a failed start leaves none of the others running unseen.
      const started = await Promise.allSettled(
        projects.map(async (p) => {
          const spawned = Date.now()
          const server = await startOpencodeServer({ cwd: p.dir, env, readyDirectory: p.dir })
          servers.push(server)
          const startMs = Date.now() - spawned
          await firstTurn(server.url, p.dir)
          return startMs
        }),
      )
      const starts = started.map((r) => {
        if (r.status === "rejected") throw r.reason
        return r.value
      })
      const ms = await answered(
        projects.map((p) => p.name),
        go,
      )
      return { goToAnsweredMs: ms, starts, rss: servers.map((s) => vmRssMiB(s.pid)) }
    } finally {
      // Every process started here, also those of a start that failed beside them, by PID.
      await Promise.all(servers.map((s) => s.stop()))
    }
  }

  try {
    const rounds = QUICK ? 1 : 3
    for (let r = 0; r < rounds; r += 1)
      for (const count of [2, 4])
        for (const mode of ["one process", "a process each"] as const) {
          const load = round(loadavg()[0] ?? 0, 1)
          log(`instance starts: round ${r + 1} of ${rounds} (load ${load}): ${count} instances, ${mode}`)
          const sample = mode === "one process" ? await oneProcess(count) : await processEach(count)
          const key = `${count}|${mode}`
          samples.set(key, [...(samples.get(key) ?? []), { sample, load }])
        }
  } finally {
    await mock.close()
    rmSync(root, { recursive: true, force: true })
  }
  const cases = [...samples].map(([key, all]): InstanceStartsCase => {
    const [count, mode] = key.split("|") as [string, StartMode]
    const starts = all.flatMap((a) => a.sample.starts)
    const befores = all.map((a) => a.sample.rssBefore).filter((v): v is number => v !== undefined)
    return {
      instances: Number(count),
      mode,
      goToAnsweredMs: median(all.map((a) => a.sample.goToAnsweredMs)),
      rounds: all.map((a) => a.sample.goToAnsweredMs),
      ...(starts.length ? { processStartMs: median(starts) } : {}),
      rssPerProcessMiB: round(median(all.flatMap((a) => a.sample.rss)), 1),
      rssTotalMiB: round(median(all.map((a) => a.sample.rss.reduce((sum, v) => sum + v, 0))), 1),
      ...(befores.length ? { rssBeforeMiB: round(median(befores), 1) } : {}),
      load: all.map((a) => a.load),
    }
  })
  return { cores: cpus().length, cases }
}

type Row = [benchmark: string, measure: string, result: string, goal: string, verdict: string]

export function instanceStartsRows(r: InstanceStartsResult): Row[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`
  const out: Row[] = []
  for (const count of [...new Set(r.cases.map((c) => c.instances))]) {
    const pair = r.cases.filter((c) => c.instances === count)
    for (const c of pair) {
      const memory =
        c.mode === "one process"
          ? `RSS ${c.rssTotalMiB} MiB (${c.rssBeforeMiB ?? "?"} MiB before)`
          : `RSS ${c.rssTotalMiB} MiB (${c.rssPerProcessMiB} MiB each), start ${s(c.processStartMs ?? Number.NaN)}`
      out.push([
        "instance starts",
        `${count} new instances' first turns, ${c.mode} (load ${c.load.join(", ")})`,
        `${s(c.goToAnsweredMs)} (${c.rounds.map(s).join(", ")}); ${memory}`,
        "",
        "(info)",
      ])
    }
    const one = pair.find((c) => c.mode === "one process")
    const each = pair.find((c) => c.mode === "a process each")
    if (one && each) {
      const faster = one.goToAnsweredMs <= each.goToAnsweredMs ? one : each
      const slower = faster === one ? each : one
      out.push([
        "instance starts",
        `  faster end to end on ${r.cores} cores, ${count} instances`,
        `${faster.mode}, by ${s(slower.goToAnsweredMs - faster.goToAnsweredMs)} (${(slower.goToAnsweredMs / faster.goToAnsweredMs).toFixed(2)}×)`,
        "",
        "(info)",
      ])
    }
  }
  return out
}
