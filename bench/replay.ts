// Benchmark — the replay of a claim of done (issue 46): in a real git repository of 10,000 files, 200
// of them changed, what the replay adds to a claim on top of the checks' own time. Its reads (git's
// rev-parse, one raw diff-tree of the two checkpoint commits, one cat-file for the command's words, the
// ignored-files walk, the plan) depend on the checkpoints only: the turn's end starts them before its
// checks (replay-prepare), so they run beside the checks, which take longer. Each round prepares them,
// lets them finish (as the checks would), then times the replay, which takes them: with a replay that
// runs (one check that does nothing, `true`), the tree made in the temp folder (real folders only where
// files differ, their files written from git; links elsewhere) and removed; and with a claim whose
// changed files are code only (no file of the start's tests): not needed, so it adds nearly nothing.
// The reads' own time is shown too (beside the checks). Goals: ≤ 300 ms and ≤ 5 ms. Run in a child
// node process on dist/.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { commitAll, git, initRepository, project } from "./guard.js"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface ReplayBenchResult {
  runs: number
  files: number
  changed: number
  /** The files put back: the start's tests the loop changed. */
  putBack: number
  /** A replay that ran, its check `true`, after its reads (prepared): tree made and removed. */
  replayMs: number
  /** A claim that changed no file of the start's tests, after its reads (prepared): "not needed". */
  notNeededMs: number
  /** The reads of that claim, which run beside the checks (rev-parse, diff-tree, cat-file, the ignored walk, plan). */
  readMs: number
}

const NOOP = { name: "noop", command: "true", kind: "test" as const }

/** A repository at the start, the start's checkpoint ref, and its work tree changed as `changes` says. */
function repository(changes: (path: string) => boolean): { dir: string; end: string; changed: number } {
  const dir = mkdtempSync(join(tmpdir(), "ralph-bench-replay-"))
  initRepository(dir)
  const before = project(false)
  const start = commitAll(dir, before, "start checkpoint")
  // A loop of its own for each round: the replay remembers the last one that ran per loop (replay-memo.ts), and a
  // real claim after a change never gets that result; every round measures the whole replay.
  for (let round = 0; round < 40; round += 1) git(dir, ["update-ref", `refs/ralph/bench-${round}/0`, start])
  const changed = [...project(true)].filter(([path, text]) => before.get(path) !== text && changes(path))
  const end = commitAll(dir, new Map(changed), "checkpoint now")
  return { dir, end, changed: changed.length }
}

async function measure(): Promise<ReplayBenchResult> {
  const { runReplay } = await loadDist<typeof import("../src/replay/replay-run.js")>("replay/replay-run.js")
  const prepared = await loadDist<typeof import("../src/replay/prepared-reads.js")>("replay/prepared-reads.js")
  const { CheckGroups } = await loadDist<typeof import("../src/checks/run-checks.js")>("checks/run-checks.js")
  const runs = QUICK ? 5 : 20
  const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6
  const time = async (dir: string, at: string, round: number) => {
    const loopID = `bench-${round}`
    const commands = [NOOP.command]
    // As the turn's end: the reads start before the checks, and are done by the time the checks are.
    const t0 = process.hrtime.bigint()
    prepared.prepareReplayRead({ directory: dir, loopID, at, commands })
    await prepared.preparedRead(dir, loopID)
    const readMs = since(t0)
    const t1 = process.hrtime.bigint()
    const read = prepared.takePreparedRead({ directory: dir, loopID, at, commands })
    if (!read) throw new Error("the prepared read was not there")
    const input = { directory: dir, loopID, at, checks: [NOOP], keep: [], groups: new CheckGroups(), read }
    const replay = await runReplay({ ...input, alive: () => true })
    return { ms: since(t1), readMs, replay }
  }
  const tests = repository((path) => path.startsWith("test/") || path.startsWith("tests/"))
  const code = repository((path) => path.startsWith("src/"))
  try {
    const replayTimes: number[] = []
    const notNeededTimes: number[] = []
    const readTimes: number[] = []
    let putBack = 0
    for (let i = 0; i < runs + 2; i += 1) {
      const ran = await time(tests.dir, tests.end, i)
      if (ran.replay.status !== "ran") throw new Error(`the replay did not run: ${JSON.stringify(ran.replay)}`)
      putBack = ran.replay.putBack.length
      const skipped = await time(code.dir, code.end, i)
      if (skipped.replay.status !== "not-needed") throw new Error(`the replay ran: ${skipped.replay.status}`)
      if (i >= 2) {
        replayTimes.push(ran.ms)
        notNeededTimes.push(skipped.ms)
        readTimes.push(skipped.readMs)
      }
    }
    return {
      runs,
      files: 10_000,
      changed: tests.changed + code.changed,
      putBack,
      replayMs: round(median(replayTimes), 1),
      notNeededMs: round(median(notNeededTimes), 2),
      readMs: round(median(readTimes), 1),
    }
  } finally {
    rmSync(tests.dir, { recursive: true, force: true, maxRetries: 5 })
    rmSync(code.dir, { recursive: true, force: true, maxRetries: 5 })
  }
}

export function runReplayBench(): Promise<ReplayBenchResult> {
  return runChild<ReplayBenchResult>(fileURLToPath(import.meta.url), [], {}, 10 * 60_000)
}

runAsChild(import.meta.url, "replay", measure)
