// The settling job's steps, driven effect by effect with scripted answers: what it asks for, in
// which order, and what it records where.
import { describe, expect, it } from "vitest"
import type { Effect, Job } from "../../src/engine/effects.js"
import { settleWorktree } from "../../src/worktrees/settle-job.js"
import type { MergeFacts } from "../../src/worktrees/merge-plan.js"
import type { WorktreeState } from "../../src/worktrees/worktree-state.js"
import { loop } from "./fixtures.js"

const state: WorktreeState = {
  name: "fix",
  branch: "ralph/fix",
  mainDirectory: "/p",
  base: { branch: "main", commit: "c0" },
  mergeStrategy: "merge",
  createdAt: 0,
}
const facts: MergeFacts = {
  strategy: "merge",
  branch: "ralph/fix",
  ahead: true,
  onBaseBranch: true,
  baseBranch: "main",
  fastForward: false,
  mainClean: true,
  conflicts: [],
}

/** Runs the job; `answer` gives each effect's result. The effects asked for (instant ones aside), as `kind target`. */
function drive(job: Job<unknown>, answer: (effect: Effect) => unknown): string[] {
  const asked: string[] = []
  let step = job.next()
  while (!step.done) {
    const effect = step.value
    if (effect.kind !== "log" && effect.kind !== "toast") {
      const where =
        effect.kind === "worktree-record"
          ? `${effect.directory} ${effect.state.merge?.result ?? ""}${effect.state.merge?.removed ? " removed" : ""}`
          : ""
      asked.push(`${effect.kind}${where ? ` ${where}` : ""}`)
    }
    step = job.next(answer(effect))
  }
  return asked
}

const entry = (stopReason: "completed" | "cancelled") => {
  const ended = loop({ phase: "stopped", stopReason })
  return { entry: { name: "fix", path: "/p/wt/fix", state, saved: { loop: ended, savedAt: 0 } }, state, loop: ended }
}

describe("the settling job", () => {
  it("a completed loop: commit, facts, merge, archive, the outcome written in the archive, and only then the removal", () => {
    const settled: string[] = []
    const asked = drive(
      settleWorktree(entry("completed"), (s) => settled.push(s.outcome.result)),
      (effect) => {
        if (effect.kind === "worktree-merge-facts") return facts
        if (effect.kind === "worktree-archive") return "/p/merged/fix"
        if (effect.kind === "worktree-remove") return { removed: true }
        return undefined
      },
    )
    expect(asked).toEqual([
      "worktree-commit",
      "worktree-merge-facts",
      "worktree-merge",
      "worktree-archive",
      "worktree-record /p/merged/fix merged removed",
      "worktree-remove",
    ])
    expect(settled).toEqual(["merged"])
  })

  it("a removal that fails after the merge: said as such (not as a failed merge), written in the archive and in the worktree left behind", () => {
    const asked = drive(
      settleWorktree(entry("completed"), () => undefined),
      (effect) => {
        if (effect.kind === "worktree-merge-facts") return facts
        if (effect.kind === "worktree-archive") return "/p/merged/fix"
        if (effect.kind === "worktree-remove") return { problem: "locked", folderGone: false }
        return undefined
      },
    )
    expect(asked.slice(-3)).toEqual([
      "worktree-remove",
      "worktree-record /p/merged/fix merged",
      "worktree-record /p/wt/fix merged",
    ])
  })

  it("a removal that fails after the merge is told as merged and not removed: the outcome, the toast and the log never say the merge failed", () => {
    const said: string[] = []
    const outcome = settleWorktree(entry("completed"), () => undefined)
    let step = outcome.next()
    while (!step.done) {
      const effect = step.value
      if (effect.kind === "toast") said.push(`${effect.notice.variant}: ${effect.notice.message}`)
      if (effect.kind === "log") said.push(effect.message)
      if (effect.kind === "worktree-record")
        said.push(`${effect.directory}: ${effect.state.merge?.result} ${effect.state.merge?.detail}`)
      const answers: Partial<Record<Effect["kind"], unknown>> = {
        "worktree-merge-facts": facts,
        "worktree-archive": "/p/merged/fix",
        "worktree-remove": { problem: "fatal: '/p/wt/fix' is locked", folderGone: false },
      }
      step = outcome.next(answers[effect.kind])
    }
    const told =
      "ralph/fix merged into main; the worktree could not be removed (fatal: '/p/wt/fix' is locked): ralph-loop clean removes it"
    expect(step.value).toEqual({ result: "merged", removed: false, detail: told })
    expect(said.slice(-4)).toEqual([
      `/p/merged/fix: merged ${told}`,
      `/p/wt/fix: merged ${told}`,
      "worktree fix: merged",
      `success: ${told}`,
    ])
    expect(said.join("\n")).not.toMatch(/could not merge|merge failed/i)
  })

  it("a loop that did not complete keeps its worktree and branch: no git call at all", () => {
    const asked = drive(
      settleWorktree(entry("cancelled"), () => undefined),
      () => undefined,
    )
    expect(asked).toEqual(["worktree-record /p/wt/fix kept"])
  })

  it("a conflict keeps the worktree: nothing is merged, archived or removed", () => {
    const asked = drive(
      settleWorktree(entry("completed"), () => undefined),
      (effect) =>
        effect.kind === "worktree-merge-facts" ? { ...facts, fastForward: false, conflicts: ["a.txt"] } : undefined,
    )
    expect(asked).toEqual(["worktree-commit", "worktree-merge-facts", "worktree-record /p/wt/fix conflict"])
  })
})
