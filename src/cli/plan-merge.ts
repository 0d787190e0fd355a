// `ralph-loop plan merge [PATH] [BRANCH…] [--project DIR]`: merges story branches (those named, or
// every `ralph/story-*` — a remote's too, after a fetch) into the current branch with a merge
// commit each, as a parallel run merges a story's worktree branch; a branch that would conflict is
// named with its files and kept, nothing of it merged. Then the merged stories are marked done in
// the plan file in its own shape and style (left uncommitted: the caller commits it), and the
// stories that became ready are printed. Refused on a work tree with tracked changes.
// Exit 0: every branch merged (or none to merge); 1: a branch conflicted or was refused, or the
// plan or the tree could not be used. (2, usage, is main's.)
import {
  currentBranchName,
  mergeStoryBranch,
  mergeToolProblem,
  mergeTreeProblem,
  storyBranchRefs,
} from "../worktrees/plan-merge-git.js"
import { looksLikePlanPath } from "../commands/ralph-args.js"
import { becameReady, type MergeStep, mergeSteps } from "../worktrees/plan-merge.js"
import type { PlanState } from "../plan/plan.js"
import { readPlanFile, writePlanBack } from "../plan/plan-file.js"
import type { CliArgs } from "./args.js"
import { planPath } from "./plan-check.js"
import { storiesEvidence, storyEvidenceLine } from "./plan-merge-evidence.js"

export async function planMerge(
  args: CliArgs,
  operands: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  note: (line: string) => void,
): Promise<number> {
  const say = (line: string) => note(`ralph-loop plan merge: ${line}`)
  // PATH is the first operand when it looks like a plan file (name.json, ./x, /x); the rest are branches.
  const [first, ...others] = operands
  const path = first !== undefined && looksLikePlanPath(first) ? first : undefined
  const named = path !== undefined ? others : [...operands]
  const read = await readPlanFile(args.project, planPath(args, path, env))
  if (!read.ok) {
    say(read.message)
    return 1
  }
  const tree = await mergeTreeProblem(args.project)
  if (tree) {
    say(`nothing merged: ${tree}`)
    return 1
  }
  const { stories } = read.plan
  const before = new Set(read.plan.doneInFile)
  const { refs, missing } = await storyBranchRefs(args.project, named)
  let failed = missing.length
  for (const name of missing) say(`${name}: no such branch`)
  const target = await currentBranchName(args.project)
  const done = new Set(before)
  const steps = mergeSteps(stories, before, refs)
  // Asked before the first merge: a git too old for it would otherwise stop the run halfway.
  const oldGit = steps.some((step) => step.kind === "merge") ? await mergeToolProblem(args.project) : undefined
  if (oldGit) {
    say(`nothing merged: ${oldGit}`)
    return 1
  }
  for (const step of steps) if (!(await takeStep(args.project, step, stories, target, done, out, say))) failed += 1
  // What each story merged now rested on, where the loop that did it recorded that (issue 39).
  const evidence = storiesEvidence(args.project)
  for (const step of steps) {
    const record = step.kind === "merge" && done.has(step.story) ? evidence.get(step.story) : undefined
    if (step.kind === "merge" && record) out(`${step.branch}: ${storyEvidenceLine(step.story, record)}`)
  }
  const marked = stories.filter((s) => done.has(s.id) && !before.has(s.id)).map((s) => s.id)
  if (marked.length > 0) {
    const plan: PlanState = {
      file: read.file,
      shape: read.plan.shape,
      stories,
      done: stories.filter((s) => done.has(s.id)).map((s) => ({ id: s.id, iteration: 0, checks: [] })),
    }
    const written = await writePlanBack(args.project, plan, { markCurrent: false })
    if ("problem" in written) {
      say(`the merges are made, but ${written.problem}; run plan merge again to mark the merged stories`)
      return 1
    }
    out(`${read.file}: marked done: ${marked.join(", ")} (not committed: commit ${read.file})`)
  } else if (refs.length === 0 && missing.length === 0)
    out("no ralph/story-* branch to merge (a remote's are seen once fetched: git fetch)")
  const ready = becameReady(stories, before, done)
  const left = stories.length - done.size
  out(
    left === 0
      ? `every story of ${read.file} is done (${stories.length})`
      : ready.length > 0
        ? `ready now: ${ready.join(", ")}`
        : `no story became ready (${left} not done)`,
  )
  return failed > 0 ? 1 : 0
}

/** One step of the merge: done (true), or refused or failed (false, said why). Stories merged or marked join `done`. */
async function takeStep(
  project: string,
  step: MergeStep,
  stories: PlanState["stories"],
  target: string | undefined,
  done: Set<string>,
  out: (line: string) => void,
  say: (line: string) => void,
): Promise<boolean> {
  if (step.kind === "refuse") {
    say(`${step.branch}: not merged: ${step.reason}`)
    return false
  }
  if (step.kind === "skip") {
    out(`${step.branch}: left alone: ${step.reason}`)
    return true
  }
  if (step.kind === "mark") {
    done.add(step.story)
    out(`${step.branch}: merged into ${target} already; story ${step.story} is marked done`)
    return true
  }
  const title = stories.find((s) => s.id === step.story)?.title ?? ""
  const result = await mergeStoryBranch(project, step.branch, `Merge ${step.branch}: story ${step.story}: ${title}`)
  if ("merged" in result) {
    done.add(step.story)
    out(`${step.branch}: merged into ${target} (story ${step.story}: ${title})`)
    return true
  }
  const why =
    "conflict" in result
      ? `merging it into ${target} would conflict in ${result.conflict.join(", ")}`
      : `the merge failed (${result.failed})`
  say(
    `${step.branch}: not merged: ${why}; the branch is kept and ${target} is as it was (merge it by hand: ` +
      `git merge ${step.branch})`,
  )
  return false
}
