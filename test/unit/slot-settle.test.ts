// A slot's settle when its story's loop stopped without completing, on a real repository with
// production's interpreter: what the outcome says of the story's branch is what became of it — kept
// with the work the loop committed, deleted when it committed none (issue 47: "its branch is kept",
// then deleted, was confirmed, and fixed).
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Interpreter } from "../../src/engine/interpreter.js"
import type { Loop } from "../../src/loop/loop.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { settleSlot } from "../../src/worktrees/slot-settle.js"
import type { MergeOutcome, WorktreeState } from "../../src/worktrees/worktree-state.js"
import { git, makeRepo } from "../git-fixture.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tmp = tempDirs()

/** A slot on `ralph/story-a` whose loop stopped at its iteration limit; `work`: a file it changed. */
async function settled(work: boolean): Promise<{ dir: string; outcome: MergeOutcome | undefined }> {
  const dir = makeRepo(tmp("slot-settle-"), { "a.txt": "a\n" }, { user: true })
  const path = join(dir, ".opencode/ralph-loop/worktrees/slot-1")
  git(dir, "worktree", "add", "-q", "-b", "ralph/story-a", path)
  if (work) writeFileSync(join(path, "a.txt"), "the story's work\n")
  const state: WorktreeState = {
    name: "slot-1",
    branch: "ralph/story-a",
    mainDirectory: dir,
    base: { branch: "main", commit: git(dir, "rev-parse", "HEAD") },
    mergeStrategy: "merge",
    story: "a",
    slot: true,
    createdAt: Date.now(),
  }
  const ended: Loop = loop({ phase: "stopped", stopReason: "max-iterations", iteration: 5, task: "story a" })
  const store = new LoopStore(path)
  await store.save(ended, "stopped:max-iterations", Date.now())
  await store.flush()
  const api = { log: () => undefined, toast: () => undefined, closeInstance: async () => undefined }
  const interpreter = new Interpreter({
    directory: dir,
    api: api as never,
    store: undefined as never,
    memory: undefined as never,
    onWake: () => undefined,
  })
  let outcome: MergeOutcome | undefined
  const entry = { name: "slot-1", path, state, saved: { loop: ended, savedAt: Date.now() } }
  await interpreter.runNow(
    "settle",
    (function* () {
      outcome = yield* settleSlot({ entry, state, loop: ended })
    })(),
  )
  return { dir, outcome }
}

const branches = (dir: string) => git(dir, "branch", "--list", "ralph/*", "--format=%(refname:short)")

describe("a slot's story that stopped without completing", () => {
  it("with work committed: its branch is kept, as the outcome says", async () => {
    const { dir, outcome } = await settled(true)
    expect(outcome).toMatchObject({ result: "kept" })
    expect(outcome?.detail).toContain("its work is on the branch ralph/story-a, which is kept")
    expect(branches(dir)).toBe("ralph/story-a")
  })

  it("with no work: the outcome says its empty branch is deleted, and it is", async () => {
    const { dir, outcome } = await settled(false)
    expect(outcome).toEqual({
      result: "kept",
      detail:
        "the loop stopped (max-iterations) without completing; it committed no work, so its branch ralph/story-a " +
        "holds none and is deleted",
    })
    expect(branches(dir)).toBe("")
  })
})
