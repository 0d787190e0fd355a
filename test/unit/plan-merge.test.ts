// plan merge's rule: which story branches are merged, in the plan's order (dependencies first), a
// branch merged already only marks its story, and what is refused or left alone.
import { describe, expect, it } from "vitest"
import { becameReady, localName, mergeSteps, type StoryBranchRef } from "../../src/worktrees/plan-merge.js"
import type { Story } from "../../src/plan/plan.js"

const story = (id: string, extra: Partial<Story> = {}): Story => ({
  id,
  title: id,
  acceptanceCriteria: [],
  dependsOn: [],
  checks: [],
  ...extra,
})
const STORIES = [
  story("s3", { dependsOn: ["s1", "s2"] }),
  story("s2", { priority: 2 }),
  story("s1", { priority: 1 }),
  story("s4"),
]
const ref = (name: string, extra: Partial<StoryBranchRef> = {}): StoryBranchRef => ({
  name,
  merged: false,
  named: false,
  empty: false,
  ...extra,
})

describe("plan merge: the steps", () => {
  it("merges in the plan's work order, whatever order git listed the branches in", () => {
    const steps = mergeSteps(STORIES, new Set(), [
      ref("ralph/story-s3"),
      ref("origin/ralph/story-s2"),
      ref("ralph/story-s1"),
    ])
    expect(steps).toEqual([
      { kind: "merge", branch: "ralph/story-s1", story: "s1" },
      { kind: "merge", branch: "origin/ralph/story-s2", story: "s2" },
      { kind: "merge", branch: "ralph/story-s3", story: "s3" },
    ])
  })

  it("a branch merged already marks its story done; one of a story done is left alone unless named", () => {
    expect(mergeSteps(STORIES, new Set(), [ref("ralph/story-s1", { merged: true })])).toEqual([
      { kind: "mark", branch: "ralph/story-s1", story: "s1" },
    ])
    expect(mergeSteps(STORIES, new Set(["s1"]), [ref("ralph/story-s1", { merged: true })])).toEqual([])
    expect(mergeSteps(STORIES, new Set(["s1"]), [ref("ralph/story-s1")])).toEqual([
      {
        kind: "skip",
        branch: "ralph/story-s1",
        reason: "story s1 is done in the plan already (name the branch to merge it all the same)",
      },
    ])
    expect(mergeSteps(STORIES, new Set(["s1"]), [ref("ralph/story-s1", { named: true })])).toEqual([
      { kind: "merge", branch: "ralph/story-s1", story: "s1" },
    ])
  })

  it("a branch merged already that holds no commit of its own is refused, its story not marked done", () => {
    const empty = ref("ralph/story-s1", { merged: true, empty: true })
    expect(mergeSteps(STORIES, new Set(), [empty])).toEqual([
      {
        kind: "refuse",
        branch: "ralph/story-s1",
        reason:
          "it holds no commit of its own (its tip is a commit of the branch it would be merged into): none of " +
          "story s1's work is on it, so the story stays not done",
      },
    ])
    // A story done already: left alone as any merged branch of it.
    expect(mergeSteps(STORIES, new Set(["s1"]), [empty])).toEqual([])
  })

  it("refuses a branch of no story, and merges one branch per story", () => {
    expect(
      mergeSteps(STORIES, new Set(), [
        ref("main", { named: true }),
        ref("ralph/story-s1"),
        ref("upstream/ralph/story-s1"),
      ]),
    ).toEqual([
      { kind: "refuse", branch: "main", reason: "it is no story's branch in this plan" },
      { kind: "skip", branch: "upstream/ralph/story-s1", reason: "another branch of story s1 is merged in this run" },
      { kind: "merge", branch: "ralph/story-s1", story: "s1" },
    ])
  })

  it("a remote's branch is the story's branch without the remote's name", () => {
    expect(localName("origin/ralph/story-s1")).toBe("ralph/story-s1")
    expect(localName("ralph/story-s1")).toBe("ralph/story-s1")
    expect(localName("main")).toBe("main")
  })
})

describe("plan merge: what became ready", () => {
  it("the stories ready after the merges that were not before", () => {
    expect(becameReady(STORIES, new Set(), new Set(["s1", "s2"]))).toEqual(["s3"])
    expect(becameReady(STORIES, new Set(), new Set(["s1"]))).toEqual([])
  })
})
