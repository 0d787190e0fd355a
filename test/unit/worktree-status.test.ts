// How /ralph-status and `ralph-loop worktrees` show worktree loops and a parallel plan run.
import { describe, expect, it } from "vitest"
import { newLoop, type Loop } from "../../src/loop/loop.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { parallelLines, worktreeLines } from "../../src/worktrees/status-lines.js"
import type { WorktreeState } from "../../src/worktrees/worktree-state.js"

const { activation: _a, ...settings } = DEFAULT_SETTINGS
const state = (name: string, over: Partial<WorktreeState> = {}): WorktreeState => ({
  name,
  branch: `ralph/${name}`,
  mainDirectory: "/p",
  base: { branch: "main", commit: "c0" },
  mergeStrategy: "merge",
  createdAt: 0,
  ...over,
})
const loop = (over: Partial<Loop>): Loop => Object.assign(newLoop("ses_a", "fix the login\nmore", settings, 0), over)

describe("worktree lines", () => {
  it("name, branch, the loop's state, the merge's outcome and files, the story", () => {
    expect(
      worktreeLines([
        { name: "a", state: state("a"), loop: loop({ phase: "running", iteration: 2 }) },
        {
          name: "b",
          state: state("b", { story: "S2", merge: { result: "conflict", files: ["x.ts", "y.ts"], detail: "" } }),
          loop: loop({ phase: "stopped", stopReason: "completed", iteration: 1 }),
        },
        { name: "c", state: undefined, loop: undefined },
      ]),
    ).toEqual([
      "Worktree loops (.opencode/ralph-loop/worktrees/):",
      "- a · ralph/a · running · iteration 2 of 6 · fix the login",
      "- b · ralph/b · completed after 1 iteration · conflict (x.ts, y.ts) · story S2 · fix the login",
      "- c · no worktree.json · starting",
    ])
    expect(worktreeLines([])).toEqual([])
  })

  it("a parallel run: done of all, what runs, what waits (for its dependencies or a place), what did not merge", () => {
    const plan = { file: "prd.json", shape: "userStories", stories: [], done: [{ id: "S1", iteration: 1, checks: [] }] }
    expect(
      parallelLines({
        plan: {
          ...plan,
          stories: new Array(4)
            .fill(null)
            .map((_, i) => ({ id: `S${i + 1}`, title: "", acceptanceCriteria: [], dependsOn: [], checks: [] })),
        },
        parallel: 2,
        fromSession: "s",
        startedAt: 0,
        running: [{ story: "S2", worktree: "slot-1" }],
        failed: [{ story: "S3", reason: "conflict in a.ts" }],
      }),
    ).toEqual([
      "Parallel run of prd.json: 1 of 4 stories done, up to 2 at once.",
      "  running: S2 (slot-1)",
      "  waiting: S4",
      "  not merged: S3 (conflict in a.ts)",
    ])
    expect(
      parallelLines({
        plan: { ...plan, stories: [{ id: "S1", title: "", acceptanceCriteria: [], dependsOn: [], checks: [] }] },
        parallel: 1,
        fromSession: "s",
        startedAt: 0,
        running: [],
        failed: [],
        cancelled: "/cancel-ralph",
      }),
    ).toContain("  cancelled (/cancel-ralph): no story starts any more")
    expect(parallelLines(undefined)).toEqual([])
  })
})
