// Benchmark 14 — worktree loops (issue 24). (1) The wall time of a plan of 4 independent stories, as
// one plan loop (one story per iteration) and as `/ralph --prd --parallel 4` (each story a worktree
// loop), in the real OpenCode with a scripted model that takes a fixed time per reply. (2) Making a
// loop's worktree in a repository of 10,000 files: `git worktree add` and what the plugin adds (its
// OpenCode config and installed plugin package seeded into the worktree's .opencode/).
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { startHarness, type Project } from "../test/harness/harness.js"
import type { MockRequest, Reply } from "../test/harness/mock-model.js"
import { waitUntil } from "../test/harness/wait.js"
import { loadDist, median, QUICK, round } from "./util.js"
import { readOpencodeLog, runTimeline, type RunTimeline } from "./worktree-timeline.js"

export interface WorktreeBenchResult {
  stories: number
  replyDelayMs: number
  /** /ralph → every story done (and, in parallel, merged), ms: the medians over rounds. */
  wallMs: { sequential: number; parallel: number }
  /** Each round: both variants' wall times, their ratio, the load average when the round began. */
  rounds: Array<{ sequential: number; parallel: number; speedup: number; load: number }>
  /** Median over rounds of one plan loop's time ÷ --parallel's time. */
  speedup: number
  /** Where the parallel run's time went, in the round of the median speed-up. */
  timeline?: RunTimeline
  files: number
  /** Making one loop's worktree: git alone, and the plugin's whole step (median ms). */
  createMs: { gitWorktreeAdd: number; plugin: number }
}

const STORIES = 4
const DELAY_MS = 1_500
const FILES = 10_000

const plan = {
  userStories: Array.from({ length: STORIES }, (_, i) => ({
    id: `S${i + 1}`,
    title: `story ${i + 1}`,
    acceptanceCriteria: [`S${i + 1}.txt exists`],
    priority: i + 1,
    passes: false,
  })),
}

/** Each story: one reply writing its file, one claiming done — each after DELAY_MS. */
function reply(r: MockRequest): Reply {
  const id = /\b(S\d)\b/.exec(r.lastUser.match(/Current story: S\d|Story S\d of the plan/)?.[0] ?? "")?.[1]
  if (!id || r.lastUser.startsWith("[ralph-loop control]")) return { text: "OK" }
  if (r.lastRole === "tool") return { text: `${id}.txt written. <promise>DONE</promise>`, delayMs: DELAY_MS }
  return { toolCalls: [{ name: "write", args: { filePath: `${id}.txt`, content: `${id}\n` } }], delayMs: DELAY_MS }
}

async function wall(project: Project, args: string): Promise<{ ms: number; started: number; ended: number }> {
  writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify(plan, null, 2)}\n`)
  const session = await project.newSession()
  const started = Date.now()
  await project.command(session, "ralph", args)
  await waitUntil(
    () => {
      // A run that ended with stories not done will not finish them: say why now, not at the timeout.
      const stopped = project.events.toasts().find((t) => t.title === "Ralph · plan stopped")
      if (stopped) throw new Error(`${args}: the run ended without every story: ${stopped.message}`)
      const written = JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")) as typeof plan
      return (
        written.userStories.every((s) => s.passes) &&
        execFileSync("git", ["ls-files", "S1.txt", "S2.txt", "S3.txt", "S4.txt"], {
          cwd: project.dir,
          encoding: "utf8",
        })
          .split("\n")
          .filter(Boolean).length >= (args.includes("--parallel") ? STORIES : 0)
      )
    },
    "every story done",
    240_000,
  )
  const ended = Date.now()
  return { ms: ended - started, started, ended }
}

async function createTimes(): Promise<WorktreeBenchResult["createMs"]> {
  const { createWorktree } =
    await loadDist<typeof import("../src/worktrees/worktree-git.js")>("actions/worktree-git.js")
  const { prepareWorktreeConfig } =
    await loadDist<typeof import("../src/worktrees/worktree-config.js")>("actions/worktree-config.js")
  const dir = mkdtempSync(join(tmpdir(), "ralph-bench-worktree-"))
  const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "ignore"],
    })
  try {
    for (let d = 0; d < 100; d += 1) {
      mkdirSync(join(dir, `src/m${d}`), { recursive: true })
      for (let f = 0; f < FILES / 100; f += 1)
        writeFileSync(join(dir, `src/m${d}/f${f}.ts`), `export const v${f} = ${d * 1000 + f}\n`)
    }
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "init")
    mkdirSync(join(dir, ".opencode/node_modules"), { recursive: true })
    writeFileSync(join(dir, ".opencode/package.json"), "{}")
    const runs = QUICK ? 3 : 7
    const plain: number[] = []
    const plugin: number[] = []
    for (let run = 0; run < runs; run += 1) {
      let at = process.hrtime.bigint()
      git("worktree", "add", "-q", "-b", `plain-${run}`, join(dir, `.plain-${run}`), "HEAD")
      plain.push(Number(process.hrtime.bigint() - at) / 1e6)
      at = process.hrtime.bigint()
      const { path } = await createWorktree(dir, `wt-${run}`, false)
      await prepareWorktreeConfig(dir, path)
      plugin.push(Number(process.hrtime.bigint() - at) / 1e6)
    }
    return { gitWorktreeAdd: round(median(plain), 0), plugin: round(median(plugin), 0) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function runWorktreeBench(log: (line: string) => void): Promise<WorktreeBenchResult> {
  const harness = await startHarness({ env: { RALPH_LOOP_DEBUG: "1" } })
  const rounds: WorktreeBenchResult["rounds"] = []
  const timelines: RunTimeline[] = []
  try {
    const count = QUICK ? 1 : 3
    for (let r = 0; r < count; r += 1) {
      const load = round(loadavg()[0] ?? 0, 1)
      log(
        `worktrees: round ${r + 1} of ${count} (load ${load}): ${STORIES} stories as one plan loop (${DELAY_MS} ms per reply)`,
      )
      const sequential = await wall(
        await harness.project(`wt-sequential-${r}`, {
          pluginOptions: { strategy: "continue" },
          script: { main: reply },
        }),
        "--prd",
      )
      log(`worktrees: round ${r + 1} of ${count}: ${STORIES} stories with --parallel ${STORIES}`)
      const project = await harness.project(`wt-parallel-${r}`, { script: { main: reply } })
      const parallel = await wall(project, `--prd --parallel ${STORIES}`)
      rounds.push({
        sequential: sequential.ms,
        parallel: parallel.ms,
        speedup: round(sequential.ms / parallel.ms),
        load,
      })
      // OpenCode writes its log a moment later: every story's merge is waited for (a step missing shows as –).
      const merged = plan.userStories.map((s) => `worktree story-${s.id.toLowerCase()}: merged`)
      const logged = () => readOpencodeLog(harness.root).filter((l) => l.at >= parallel.started)
      await waitUntil(
        () => merged.every((m) => logged().some((l) => l.message === m)),
        "the run's merges in OpenCode's log",
        10_000,
      ).catch(() => undefined)
      timelines.push(
        runTimeline(
          logged(),
          project.requests("main"),
          parallel.started,
          Date.now(),
          plan.userStories.map((s) => s.id),
        ),
      )
    }
  } finally {
    await harness.stop()
  }
  log(`worktrees: a worktree of a ${FILES.toLocaleString("en")}-file repository`)
  const createMs = await createTimes()
  const speedup = median(rounds.map((r) => r.speedup))
  const at = rounds.findIndex((r) => r.speedup === speedup)
  const timeline = timelines[Math.max(at, 0)]
  return {
    stories: STORIES,
    replyDelayMs: DELAY_MS,
    wallMs: { sequential: median(rounds.map((r) => r.sequential)), parallel: median(rounds.map((r) => r.parallel)) },
    rounds,
    speedup,
    ...(timeline ? { timeline } : {}),
    files: FILES,
    createMs,
  }
}

/** The timeline as text: one line per story, and what each step took. */
export function timelineLines(t: RunTimeline): string[] {
  const s = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "–")
  const lines = [`/ralph → first worktree made: ${s(t.commandMs)} s`]
  const head = [
    "story",
    "make wt",
    "session+inst.",
    "→ loop start",
    "→ 1st request",
    "own turns",
    "→ report",
    "→ settle",
    "commit",
    "merge-tree",
    "merge",
    "archive",
    "removal",
    "plan write",
    "| began",
    "loop",
    "1st req.",
    "merged",
    "marked",
  ]
  lines.push(head.join("  "))
  for (const x of t.stories) {
    const m = x.ms
    const a = x.at
    lines.push(
      [
        x.story,
        ...[
          m.makeWorktree,
          m.sessionAndInstance,
          m.toLoopStart,
          m.toFirstRequest,
          m.ownTurns,
          m.toReport,
          m.toSettle,
          m.commit,
          m.mergeTree,
          m.merge,
          m.archive,
          m.removal,
          m.planWrite,
        ].map(s),
        "|",
        ...[a.launch, a.loopStarted, a.firstRequest, a.merged, a.marked].map(s),
      ].join("  "),
    )
  }
  return lines
}
