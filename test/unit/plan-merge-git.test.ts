// plan merge's git side on real repositories: which story branches count as merged already, and
// which of those hold no commit of their own (made from the branch merged into, never committed on).
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { storyBranchRefs } from "../../src/worktrees/plan-merge-git.js"
import { commitAll, git, makeRepo } from "../git-fixture.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()

describe("plan merge: the story branches git has", () => {
  it("a branch made from main and never committed on is merged but empty; a merged story's branch is not", async () => {
    const dir = makeRepo(tmp("plan-merge-git-"), { "a.txt": "a\n" })
    // Empty: made at main's commit, main moved on since.
    git(dir, "branch", "ralph/story-s1")
    writeFileSync(join(dir, "a.txt"), "a2\n")
    commitAll(dir, "main moves on")
    // Merged with a merge commit, as plan merge and a parallel run make them.
    git(dir, "checkout", "-q", "-b", "ralph/story-s2")
    writeFileSync(join(dir, "two.txt"), "two\n")
    commitAll(dir, "story s2: work")
    git(dir, "checkout", "-q", "main")
    git(dir, "merge", "-q", "--no-ff", "-m", "Merge ralph/story-s2", "ralph/story-s2")
    // Empty at HEAD itself.
    git(dir, "branch", "ralph/story-s3")
    // Not merged.
    git(dir, "checkout", "-q", "-b", "ralph/story-s4")
    writeFileSync(join(dir, "four.txt"), "four\n")
    commitAll(dir, "story s4: work")
    git(dir, "checkout", "-q", "main")

    const { refs } = await storyBranchRefs(dir, [])
    expect(Object.fromEntries(refs.map((r) => [r.name, { merged: r.merged, empty: r.empty }]))).toEqual({
      "ralph/story-s1": { merged: true, empty: true },
      "ralph/story-s2": { merged: true, empty: false },
      "ralph/story-s3": { merged: true, empty: true },
      "ralph/story-s4": { merged: false, empty: false },
    })
    // Named on the command line: the same judgement.
    const named = await storyBranchRefs(dir, ["ralph/story-s1", "ralph/story-s2"])
    expect(named.refs.map((r) => r.empty)).toEqual([true, false])
  })
})
