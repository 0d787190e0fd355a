// The replay of a claim of done (issue 46): the files that differ between the loop's start
// checkpoint and the work tree at the claim (as its checkpoint holds it) are read (tree-diff.ts), the
// replay planned (plan.ts), the replay tree made outside the project (replay-tree.ts), the checks run
// in it one after the other, and the tree removed — also when a check or git fails. Whatever cannot
// be read, made or started is a replay that could not run, with the reason: never a pass.
import { checkpointRef } from "../checkpoints/checkpoints.js"
import { workTreeSnapshot } from "../checkpoints/checkpoint-git.js"
import type { CheckConfig } from "../config/schema.js"
import { failureIdentities } from "../checks/failures/index.js"
import { runCheck, type CheckGroups } from "../checks/run-checks.js"
import type { CheckResult } from "../checks/diagnostics.js"
import type { Replay, ReplayCheck } from "../evidence/replay-record.js"
import { gitText } from "../git/run.js"
import { calledFiles } from "./called-files.js"
import { changedExpectations } from "./expectations.js"
import { recalledReplay, rememberReplay, replayKey } from "./replay-memo.js"
import { planReplay, type ReplayPlan } from "./plan.js"
import { ignoredSurfaceFiles, makeReplayTree, sweepReplayTrees } from "./replay-tree.js"
import { filesOfTree, textAt, treeDiff, type TreeDiff } from "./tree-diff.js"

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
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

export async function runReplay(input: ReplayRunInput): Promise<Replay> {
  try {
    return await replay(input)
  } catch (error) {
    return { status: "could-not-run", reason: reasonOf(error) }
  }
}

/** A promise's outcome, held until it is asked for (a read started early never rejects unheard). */
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => () => value,
    (error: unknown) => () => {
      throw error
    },
  )

async function replay(input: ReplayRunInput): Promise<Replay> {
  const { directory } = input
  if (input.checks.length === 0) return { status: "could-not-run", reason: "the loop has no checks to replay" }
  // The walk of the ignored files is the longest read: it runs beside the others.
  const ignored = settle(ignoredSurfaceFiles(directory))
  const [top, prefix, from] = (
    await gitText(directory, [
      "rev-parse",
      "--show-toplevel",
      "--show-prefix",
      "--verify",
      `${checkpointRef(input.loopID, 0)}^{commit}`,
    ])
  ).split("\n")
  const at = input.at ?? (await workTreeSnapshot(directory))
  if (!top || !from || at === undefined)
    return { status: "could-not-run", reason: "the project is not in a git repository" }
  const [startTree, endTree] = [`${from}:${prefix ?? ""}`, `${at.trim()}:${prefix ?? ""}`]
  const commands = input.checks.map((c) => c.command)
  const text = (side: "start" | "end", path: string) => textAt(directory, side === "start" ? startTree : endTree, path)
  const [diff, called] = await Promise.all([
    treeDiff(directory, startTree, endTree),
    calledFiles({ commands, exists: filesOfTree(directory, startTree), text: (path) => text("start", path) }),
  ])
  const plan = await planReplay({ start: diff.start, end: diff.end, called, commands, text, keep: input.keep })
  const ignoredSurface = (await ignored)()
  if (!plan.needed && ignoredSurface.length === 0) return { status: "not-needed" }
  const resolvedEnd = (await gitText(directory, ["rev-parse", endTree])).trim()
  const key = replayKey({ from, endTree: resolvedEnd, commands, keep: input.keep, ignored: ignoredSurface })
  const recalled = recalledReplay(directory, input.loopID, key, Date.now())
  if (recalled) return recalled
  await sweepReplayTrees(input.alive)
  const tree = await makeReplayTree({ directory, top, endTree, start: diff.start, plan, ignoredSurface })
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
