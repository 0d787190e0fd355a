// Benchmark 14 — worktree loops (issues 24, 33, 40). (1) Three configurations of a plan of
// independent stories, each as one plan loop (one story per iteration) and as `/ralph --prd
// --parallel 4`, in turns on one real OpenCode server, with a scripted model that takes a fixed time
// per reply: 4 stories at 1.5 s, 8 stories at 1.5 s, 4 stories at 5 s. Each parallel run is set
// against the limit on this machine (bench/worktree-limit.ts) and split into its steps
// (bench/worktree-timeline.ts). (2) Making a loop's worktree in a repository of 10,000 files: `git
// worktree add` and what the plugin adds (its OpenCode config and plugin package in .opencode/).
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { type Harness, type Project, startHarness } from "../test/harness/harness.js"
import type { MockRequest, Reply } from "../test/harness/mock-model.js"
import { waitUntil } from "../test/harness/wait.js"
import { loadDist, median, QUICK, round } from "./util.js"
import { machineLimit, type MachineLimit, type RunSplit, runSplit, slotsOf, type Slot } from "./worktree-limit.js"
import { readOpencodeLog, runTimeline, type RunTimeline, storyOf, storyPhases, storyRuns } from "./worktree-timeline.js"

export interface WorktreeConfig {
  stories: number
  slots: number
  replyDelayMs: number
  /** The goal for its speed-up over one plan loop, if it has one. */
  goalSpeedup?: number
}

/** Issue 40's three configurations. */
export const CONFIGS: readonly WorktreeConfig[] = [
  { stories: 4, slots: 4, replyDelayMs: 1_500 },
  { stories: 8, slots: 4, replyDelayMs: 1_500, goalSpeedup: 2.5 },
  { stories: 4, slots: 4, replyDelayMs: 5_000, goalSpeedup: 3 },
]

/** One round of one configuration: both variants' wall times and the parallel run against its limit. */
export interface WorktreeRound {
  load: number
  sequential: number
  parallel: number
  speedup: number
  limit: MachineLimit
  /** parallel ÷ limit. */
  toLimit: number
  slots: Slot[]
}

export interface WorktreeConfigResult extends WorktreeConfig {
  rounds: WorktreeRound[]
  /** Medians over rounds, ms. */
  wallMs: { sequential: number; parallel: number }
  speedup: number
  toLimit: number
  /** The round of the median speed-up: its limit, its split, its timeline. */
  limit?: MachineLimit
  split?: RunSplit
  timeline?: RunTimeline
}

export interface WorktreeBenchResult {
  cores: number
  configs: WorktreeConfigResult[]
  files: number
  /** Making one loop's worktree: git alone, and the plugin's whole step (median ms). */
  createMs: { gitWorktreeAdd: number; plugin: number }
}

const FILES = 10_000

const planOf = (stories: number) => ({
  userStories: Array.from({ length: stories }, (_, i) => ({
    id: `S${i + 1}`,
    title: `story ${i + 1}`,
    acceptanceCriteria: [`S${i + 1}.txt exists`],
    priority: i + 1,
    passes: false,
  })),
})

/** Each story: one reply writing its file, one claiming done — each after `delayMs`. */
const replyAfter =
  (delayMs: number) =>
  (r: MockRequest): Reply => {
    const id = storyOf(r)
    if (!id) return { text: "OK" }
    if (r.lastRole === "tool") return { text: `${id}.txt written. <promise>DONE</promise>`, delayMs }
    return { toolCalls: [{ name: "write", args: { filePath: `${id}.txt`, content: `${id}\n` } }], delayMs }
  }

async function wall(
  project: Project,
  args: string,
  stories: number,
): Promise<{ ms: number; started: number; ended: number }> {
  const plan = planOf(stories)
  writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify(plan, null, 2)}\n`)
  const files = plan.userStories.map((s) => `${s.id}.txt`)
  const session = await project.newSession()
  const started = Date.now()
  await project.command(session, "ralph", args)
  await waitUntil(
    () => {
      // A run that ended with stories not done will not finish them: say why now, not at the timeout.
      const stopped = project.events.toasts().find((t) => t.title === "Ralph · plan stopped")
      if (stopped) throw new Error(`${args}: the run ended without every story: ${stopped.message}`)
      const written = JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")) as typeof plan
      if (!written.userStories.every((s) => s.passes)) return false
      if (!args.includes("--parallel")) return true
      const committed = execFileSync("git", ["ls-files", ...files], { cwd: project.dir, encoding: "utf8" })
      return committed.split("\n").filter(Boolean).length >= stories
    },
    "every story done",
    600_000,
  )
  const ended = Date.now()
  return { ms: ended - started, started, ended }
}

/** One round of one configuration: one plan loop, then --parallel, each in a new project. */
async function runRound(
  harness: Harness,
  config: WorktreeConfig,
  name: string,
  log: (line: string) => void,
): Promise<{ round: WorktreeRound; split?: RunSplit; timeline: RunTimeline }> {
  const load = round(loadavg()[0] ?? 0, 1)
  const script = { main: replyAfter(config.replyDelayMs) }
  log(`worktrees: ${name} (load ${load}): one plan loop`)
  const seqProject = await harness.project(`${name}-sequential`, { pluginOptions: { strategy: "continue" }, script })
  const sequential = await wall(seqProject, "--prd", config.stories)
  seqProject.close()
  log(`worktrees: ${name}: --parallel ${config.slots}`)
  const project = await harness.project(`${name}-parallel`, { script })
  const delays = new Map<MockRequest, number>()
  const stop = harness.mock.onRequest((r, reply) => {
    if (r.scope === project.scope) delays.set(r, reply.delayMs ?? 0)
  })
  const parallel = await wall(project, `--prd --parallel ${config.slots}`, config.stories)
  stop()
  const ids = planOf(config.stories).userStories.map((s) => s.id)
  // OpenCode writes its log a moment later: every story's merge is waited for (a step missing shows as –).
  const logged = () => readOpencodeLog(harness.root).filter((l) => l.at >= parallel.started)
  await waitUntil(
    () =>
      logged().filter((l) => l.message.startsWith("worktree ") && l.message.endsWith(": merged")).length >= ids.length,
    "the run's merges in OpenCode's log",
    10_000,
  ).catch(() => undefined)
  project.close()
  const timeline = runTimeline(logged(), project.requests("main"), parallel.started, Date.now(), ids)
  const modelMs: Record<string, number> = {}
  for (const [r, ms] of delays) {
    const story = storyOf(r)
    if (story && r.kind === "main") modelMs[story] = (modelMs[story] ?? 0) + ms
  }
  const runs = storyRuns(timeline)
  const slots = slotsOf(runs, config.slots)
  const firstOfSlot = new Set(slots.map((s) => s.stories[0]))
  const starts = timeline.stories.filter((s) => firstOfSlot.has(s.story)).map((s) => s.instanceStartMs)
  const limit = machineLimit(slots, modelMs, starts, cpus().length)
  const ends = Object.fromEntries(runs.map((s) => [s.story, s.end]))
  const split = runSplit(slots, storyPhases(timeline), ends, timeline.commandMs, parallel.ms)
  return {
    round: {
      load,
      sequential: sequential.ms,
      parallel: parallel.ms,
      speedup: round(sequential.ms / parallel.ms),
      limit,
      toLimit: round(parallel.ms / limit.limitMs),
      slots,
    },
    ...(split ? { split } : {}),
    timeline,
  }
}

export const configLabel = (c: WorktreeConfig): string =>
  `${c.stories} stories, ${c.slots} slots, ${c.replyDelayMs / 1000} s replies`

export async function runWorktreeBench(log: (line: string) => void): Promise<WorktreeBenchResult> {
  const harness = await startHarness({ env: { RALPH_LOOP_DEBUG: "1" } })
  const runs = CONFIGS.map(() => [] as Awaited<ReturnType<typeof runRound>>[])
  try {
    const count = QUICK ? 1 : 3
    // Rounds alternate the configurations, so a busy spell of the machine spreads over all of them.
    for (let r = 0; r < count; r += 1)
      for (const [c, config] of CONFIGS.entries()) {
        const name = `wt-${config.stories}x${config.slots}-${config.replyDelayMs}ms-r${r + 1}`
        runs[c]?.push(await runRound(harness, config, name, log))
      }
  } finally {
    await harness.stop()
  }
  log(`worktrees: a worktree of a ${FILES.toLocaleString("en")}-file repository`)
  const createMs = await createTimes()
  const configs = CONFIGS.map((config, c): WorktreeConfigResult => {
    const all = runs[c] ?? []
    const rounds = all.map((x) => x.round)
    const speedup = median(rounds.map((x) => x.speedup))
    const chosen =
      all[
        Math.max(
          0,
          rounds.findIndex((x) => x.speedup === speedup),
        )
      ]
    return {
      ...config,
      rounds,
      wallMs: { sequential: median(rounds.map((x) => x.sequential)), parallel: median(rounds.map((x) => x.parallel)) },
      speedup,
      toLimit: median(rounds.map((x) => x.toLimit)),
      ...(chosen ? { limit: chosen.round.limit, timeline: chosen.timeline } : {}),
      ...(chosen?.split ? { split: chosen.split } : {}),
    }
  })
  return { cores: cpus().length, configs, files: FILES, createMs }
}

async function createTimes(): Promise<WorktreeBenchResult["createMs"]> {
  const { createWorktree } =
    await loadDist<typeof import("../src/worktrees/worktree-git.js")>("worktrees/worktree-git.js")
  const { prepareWorktreeConfig } =
    await loadDist<typeof import("../src/worktrees/worktree-config.js")>("worktrees/worktree-config.js")
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
