// The replay of a claim of done (issue 46): the files that differ between the loop's start
// checkpoint and the work tree at the claim (as its checkpoint holds it) are read and the replay
// planned (replay-read.ts; or taken as read beside the checks, prepared-reads.ts), the replay tree
// made outside the project (replay-tree.ts), the checks run in it one after the other, and the tree
// removed — also when a check or git fails. Whatever cannot be read, made or started is a replay
// that could not run, with the reason: never a pass.
import type { CheckConfig } from "../config/schema.js"
import { failureIdentities } from "../checks/failures/index.js"
import { runCheck, type CheckGroups } from "../checks/run-checks.js"
import type { CheckResult } from "../checks/diagnostics.js"
import type { Replay, ReplayCheck } from "../evidence/replay-record.js"
import { gitText } from "../git/run.js"
import { changedExpectations } from "./expectations.js"
import { recalledReplay, rememberReplay, replayKey } from "./replay-memo.js"
import { planReplay, type ReplayPlan } from "./plan.js"
import { readReplay, readText, type ReplayReadOutcome } from "./replay-read.js"
import { makeReplayTree, sweepReplayTrees } from "./replay-tree.js"
import type { TreeDiff } from "./tree-diff.js"

export interface ReplayRunInput {
  directory: string
  loopID: string
  /** The work tree at the claim as a commit (the turn end's checkpoint); read now when absent. */
  at: string | undefined
  checks: readonly CheckConfig[]
  /** Files whose change the user accepted (a finding accepted by its key): the end's version is replayed. */
  keep: readonly string[]
  groups: CheckGroups
  /** Whether a process of this machine is running (the sweep of trees a kill left). */
  alive: (pid: number) => boolean
  /** Called once the replay tree exists, before its checks run (a crash point of the kill tests). */
  treeMade?: () => void
  /**
   * The reads of this replay started earlier (prepared-reads.ts: beside the checks), their outcome held
   * settled; absent: they are read now.
   */
  read?: Promise<() => ReplayReadOutcome> | undefined
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

export async function runReplay(input: ReplayRunInput): Promise<Replay> {
  try {
    return await replay(input)
  } catch (error) {
    return { status: "could-not-run", reason: reasonOf(error) }
  }
}

async function replay(input: ReplayRunInput): Promise<Replay> {
  const { directory } = input
  if (input.checks.length === 0) return { status: "could-not-run", reason: "the loop has no checks to replay" }
  const commands = input.checks.map((c) => c.command)
  const outcome = input.read
    ? (await input.read)()
    : await readReplay({ directory, loopID: input.loopID, at: input.at, commands })
  if ("unread" in outcome) return { status: "could-not-run", reason: outcome.unread }
  const { read } = outcome
  const { diff, from, endTree, ignoredSurface } = read
  const text = readText(directory, read)
  // The read planned with no file kept; files the user accepted plan it again (pure, but for merged files' texts).
  const plan =
    input.keep.length === 0
      ? read.plan
      : await planReplay({ ...diff, called: read.called, commands, text, keep: input.keep })
  if (!plan.needed && ignoredSurface.length === 0) return { status: "not-needed" }
  const resolvedEnd = (await gitText(directory, ["rev-parse", endTree])).trim()
  const key = replayKey({ from, endTree: resolvedEnd, commands, keep: input.keep, ignored: ignoredSurface })
  const recalled = recalledReplay(directory, input.loopID, key, Date.now())
  if (recalled) return recalled
  await sweepReplayTrees(input.alive)
  const tree = await makeReplayTree({ directory, top: read.top, endTree, start: diff.start, plan, ignoredSurface })
  try {
    input.treeMade?.()
    const results: CheckResult[] = []
    for (const check of input.checks) results.push(await runCheck(check, tree.dir, input.groups))
    const unstarted = results.find((r) => r.status === "missing" || r.status === "error")
    if (unstarted) return { status: "could-not-run", reason: `${unstarted.name} could not start in the replay tree` }
    const checks = results.map((r) => replayCheck(r, tree.dir))
    const failures = checks.filter((c) => !c.passed).flatMap((c) => c.failures)
    const candidates = failures.length > 0 ? plan.putBack.slice(0, MAX_CANDIDATES) : []
    const texts = await expectationTexts(diff, text, [...failures.map(fileOfFailure), ...candidates])
    const expectations = changedExpectations({ failures, texts, candidates })
    const ran = ranReplay(tree.tree, plan, ignoredSurface, checks, expectations)
    rememberReplay(directory, input.loopID, key, Date.now(), ran)
    return ran
  } finally {
    await tree.remove()
  }
}

function ranReplay(
  tree: string,
  plan: ReplayPlan,
  ignored: string[],
  checks: ReplayCheck[],
  expectations: ReturnType<typeof changedExpectations>,
): Replay {
  const { putBack, leftOut } = plan
  return {
    status: "ran",
    tree,
    putBack,
    leftOut,
    merged: plan.merged.map((m) => m.path),
    ignored,
    checks,
    expectations,
  }
}

function replayCheck(result: CheckResult, dir: string): ReplayCheck {
  const tests = result.tests ?? null
  const passed = result.status === "passed"
  return {
    name: result.name,
    command: result.command,
    exitCode: result.exitCode,
    passed,
    tests,
    failures: passed ? [] : (result.failures ?? failureIdentities(result.output, dir)),
    outputSha256: result.outputSha256 ?? "",
  }
}

/** Put-back files read to find by name a failing test whose identity names no file (mocha, go). */
const MAX_CANDIDATES = 50

const fileOfFailure = (failure: string): string => failure.split(" > ")[0]?.split("::")[0] ?? ""

/** The start's and end's texts of `files` that the loop changed (read once each). */
async function expectationTexts(
  diff: TreeDiff,
  text: (side: "start" | "end", path: string) => Promise<string | undefined>,
  files: readonly string[],
) {
  const read = new Map<string, { start: string | undefined; end: string | undefined }>()
  for (const file of files) {
    // A file the diff does not have at the start is new, or the same at both ends: no changed expectation.
    if (read.has(file) || !diff.start.has(file)) continue
    read.set(file, { start: await text("start", file), end: diff.end.has(file) ? await text("end", file) : undefined })
  }
  return (file: string) => read.get(file) ?? { start: undefined, end: undefined }
}
