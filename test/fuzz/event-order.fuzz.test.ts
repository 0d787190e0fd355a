// Event-order replay fuzzer (issue 7): seeded sequences of runtime-shaped OpenCode events, user
// commands and runner call completions, played through the plugin's hooks, the LoopManager and the
// pure decision core by the simulator in sim.ts, which checks the loop invariants after every step.
//
//   FUZZ_RUNS   how many sequences (default 400; `npm run fuzz` runs 20000); the worktree runs, which
//               write real files, run a quarter of them
//   FUZZ_SEED   the seed (default: a fixed one under `npm test`, so CI is repeatable; `npm run fuzz`
//               passes a fresh one each time, printed in the test name and on failure)
//   FUZZ_PATH   with FUZZ_SEED: replay exactly the (shrunk) failing sequence fast-check reported
//   FUZZ_LENGTH longest sequence (default 80 actions)
//   FUZZ_STATS  =1: print what the runs reached (decisions, prompts, stop reasons), to tune weights
//   FUZZ_ONLY   loops | continuations | worktrees: run one kind of runs only
//   FUZZ_SURVEY =1: do not stop at the first failure: run all FUZZ_RUNS sequences (no shrinking) and
//               list every distinct broken invariant with its shortest sequence (to fix several at once)
//
// A failure prints the invariant, the trace of the shrunk sequence and the replay command.
import fc from "fast-check"
import { describe, it } from "vitest"
import { plainConfig, plainScenario, runConfig, scenario, worktreeConfig, worktreeScenario } from "./arbitraries.js"
import { runScenario, type Action, type RunConfig, type World } from "./sim.js"

// 400 under `npm test`: with the pinned seed they reach every outcome the 1,000 reached (FUZZ_STATS=1:
// the same 65 decisions, stop reasons, worktree outcomes, recoveries…), at 2.5 times less of its time.
const numRuns = Number(process.env.FUZZ_RUNS ?? 400)
const CI_SEED = 20261122
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : CI_SEED
const path = process.env.FUZZ_PATH
const maxLength = Number(process.env.FUZZ_LENGTH ?? 80)
const stats = process.env.FUZZ_STATS === "1" ? new Map<string, number>() : undefined
const survey = process.env.FUZZ_SURVEY === "1"

function tally(world: World): void {
  if (!stats) return
  const add = (key: string, n = 1) => stats.set(key, (stats.get(key) ?? 0) + n)
  add("runs")
  add("prompts", world.prompts.length)
  add(`runs with ${Math.min(world.prompts.length, 4)}${world.prompts.length >= 4 ? "+" : ""} prompts`)
  for (const line of world.trace) {
    const decided = /log debug: idle of \S+: (\S+)/.exec(line)
    if (decided) add(`decision ${decided[1]}`)
    if (line.includes("OpenCode is killed and restarted")) add("restart of OpenCode")
    if (line.includes("another one open on the project takes its loops back")) add("owner died, loops taken back")
    if (line.includes("starts: take-back")) add("take-back job")
    if (line.includes(": recovered →")) add("loop recovered")
    if (line.includes("starts: recovery of")) add("recovery job")
    if (line.includes("run-checks of")) add("checks run")
    if (line.includes("timer of")) add("wake")
    if (line.includes("starts: rollback of")) add("rollback")
    if (line.includes(": checkpoint-restore of")) add("rollback restored")
    const continued = /CONTINUATION \((\S+)\)/.exec(line)
    if (continued) add(`continuation ${continued[1]}`)
    if (line.includes("todo continuation") && line.includes("cancelled")) add("todo countdown cancelled")
    if (line.includes("todo continuation") && line.includes("stopped")) add("todo continuation limit")
    if (/auto-continue checks of .* → (limit|stagnant)/.test(line)) add("auto-continue ended")
    if (/: worktree-merge \S+ \(\S+\) → ok/.test(line)) add("merges into the user's branch")
    if (/: parallel-mark /.test(line)) add("plan marked by a parallel run")
    if (/: slot-reset /.test(line)) add("a slot takes its next story")
    if (/: slot-cancel /.test(line)) add("a story's loop cancelled in its slot (run cancelled)")
    if (/: slot-remove /.test(line)) add("a slot removed at the run's end")
    if (line.includes("waits: ")) add("job waited for a lock")
    if (line.includes("the guard found")) add("claims the guard found a weakened check in")
  }
  for (const wt of world.worktreeLoops)
    add(`worktree ${wt.outcome?.result ?? (wt.loop ? wt.loop.phase : "starting")}${wt.removed ? " (removed)" : ""}`)
  for (const t of world.loops) {
    add(`end ${t.loop.phase}${t.loop.stopReason ? ` ${t.loop.stopReason}` : ""}`)
    add(`loops reaching iteration ${t.loop.iteration}`)
    if (t.loop.plan) add(`plan loops with ${t.loop.plan.done.length} of ${t.loop.plan.stories.length} stories done`)
  }
}

/** What a run is made of: the instance config and the actions. */
interface Runs {
  config: fc.Arbitrary<RunConfig>
  scenario: fc.Arbitrary<Action[]>
  /** FUZZ_ONLY picks one kind of runs (a replay names the one that failed). */
  name: string
  /** How many sequences, and how long one may take at most (ms). */
  runs: number
  msPerRun: number
}

const LOOPS: Runs = { config: runConfig, scenario: scenario(maxLength), name: "loops", runs: numRuns, msPerRun: 40 }
// Continuations outside /ralph: a session without a loop that stops with open todos, its countdown
// against typing, Esc, commands, requests, loops starting, restarts.
const CONTINUATIONS: Runs = {
  config: plainConfig,
  scenario: plainScenario(maxLength),
  name: "continuations",
  runs: numRuns,
  msPerRun: 40,
}
// Worktree loops and parallel plan runs: a main-tree loop beside a run whose worktree loops start,
// complete and are settled (merge, archive, remove) while OpenCode may be killed between any two steps.
const WORKTREES: Runs = {
  config: worktreeConfig,
  scenario: worktreeScenario(maxLength),
  name: "worktrees",
  runs: Math.ceil(numRuns / 4),
  msPerRun: 400,
}
const only = process.env.FUZZ_ONLY

describe("event-order fuzzer", () => {
  // One test per kind of runs, two modes (FUZZ_SURVEY=1 lists every broken invariant instead of stopping at the first).
  for (const runs of [LOOPS, CONTINUATIONS, WORKTREES].filter((r) => !only || r.name === only))
    it(
      `keeps the invariants over ${runs.runs} event orders: ${runs.name} (seed ${seed}${survey ? ", survey" : ""})`,
      { timeout: Math.max(120_000, runs.runs * runs.msPerRun) },
      () => (survey ? surveyRuns(runs) : checkRuns(runs)),
    )
})

async function checkRuns(runs: Runs): Promise<void> {
  const property = fc.asyncProperty(runs.config, runs.scenario, async (config, actions) => {
    tally(await runScenario(config, actions))
  })
  const details = await fc.check(property, { numRuns: runs.runs, seed, ...(path ? { path } : {}) })
  if (stats)
    console.log(
      [...stats.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}: ${v}`)
        .join("\n"),
    )
  if (!details.failed) return
  const replay = `FUZZ_ONLY=${runs.name} FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ""} npx vitest run test/fuzz/event-order.fuzz.test.ts`
  const error = details.errorInstance
  const message = error instanceof Error ? error.message : String(error)
  throw new Error(
    [
      `Event-order fuzzer: ${details.numShrinks} shrinks after ${details.numRuns} runs, seed ${details.seed}, path ${details.counterexamplePath ?? "?"}`,
      `Replay: ${replay}`,
      "",
      message,
      "",
      `Counterexample: ${fc.stringify(details.counterexample)}`,
    ].join("\n"),
  )
}

async function surveyRuns(runs: Runs): Promise<void> {
  const found = new Map<string, { count: number; sample: [RunConfig, Action[]]; message: string }>()
  for (const sample of fc.sample(fc.tuple(runs.config, runs.scenario), { numRuns: runs.runs, seed })) {
    try {
      tally(await runScenario(...sample))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      // One class per invariant and wording, names and numbers folded.
      const key = (message.split("\n")[0] ?? "")
        .replace(/loop \d+ \(\S+\)/g, "L")
        .replace(/ses_\w+/g, "S")
        .replace(/\d+/g, "#")
      const seen = found.get(key)
      if (!seen) found.set(key, { count: 1, sample, message })
      else {
        seen.count += 1
        if (sample[1].length < seen.sample[1].length) Object.assign(seen, { sample, message })
      }
    }
  }
  if (stats)
    console.log(
      [...stats.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}: ${v}`)
        .join("\n"),
    )
  if (found.size === 0) return
  const classes = [...found.entries()].sort((a, b) => b[1].count - a[1].count)
  throw new Error(
    [
      `Event-order survey, seed ${seed}: ${classes.length} distinct broken invariant(s) in ${runs.runs} runs`,
      ...classes.map(([key, { count }]) => `  ${count}× ${key}`),
      ...classes.flatMap(([key, { sample, message }]) => [
        "",
        `=== ${key}`,
        `Sequence: ${fc.stringify(sample)}`,
        message,
      ]),
    ].join("\n"),
  )
}
