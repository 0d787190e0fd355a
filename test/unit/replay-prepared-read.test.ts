// The replay's reads started beside the checks (issue 46): the `replay` effect after a `replay-prepare`
// of the same loop and claim takes what was read then, and reads again for another claim. Proven with
// the start checkpoint moved in between: a replay that read again would see the new start.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { checkpointRef } from "../../src/checkpoints/checkpoints.js"
import { CheckGroups } from "../../src/checks/run-checks.js"
import type { HandlerContext } from "../../src/engine/handlers/context.js"
import { workTreeHandlers } from "../../src/engine/handlers/work-tree.js"
import type { Loop } from "../../src/loop/loop.js"
import { preparedRead } from "../../src/replay/prepared-reads.js"
import { commitAll, git, makeRepo } from "../git-fixture.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const check = { name: "unit", kind: "test" as const, command: "true" }

function handlers(directory: string) {
  const ctx = { directory, checkGroups: new CheckGroups(), reached: () => undefined } as unknown as HandlerContext
  return workTreeHandlers(ctx)
}

const loopOf = (id: string) => ({ id, settings: { checks: [check] }, plan: undefined }) as unknown as Loop

/**
 * A repository whose start checkpoint has the test as the claim has it (no replay needed), and a
 * commit `moved` where the test differs: with the checkpoint moved there, a fresh read needs a replay.
 */
function repository(loopID: string) {
  const dir = tempDir("ralph-replay-prepared-")
  mkdirSync(join(dir, "test"))
  makeRepo(dir, { "sum.js": "a - b\n", "test/sum.test.js": "expects 0\n" })
  const moved = git(dir, "rev-parse", "HEAD")
  writeFileSync(join(dir, "test", "sum.test.js"), "expects 3\n")
  commitAll(dir, "the start")
  git(dir, "update-ref", checkpointRef(loopID, 0), "HEAD")
  writeFileSync(join(dir, "sum.js"), "a + b\n")
  commitAll(dir, "the claim's work: code only")
  return { dir, moved, claim: git(dir, "rev-parse", "HEAD"), before: git(dir, "rev-parse", "HEAD~1") }
}

/** The prepared read of `loopID` done (the checks it runs beside take longer). */
async function readDone(dir: string, loopID: string): Promise<void> {
  const read = preparedRead(dir, loopID)
  expect(read).toBeDefined()
  await read
}

describe("a replay's reads prepared beside the checks", () => {
  it("are what the replay of the same claim judges, and are taken once", async () => {
    const { dir, moved, claim } = repository("loop-p1")
    const h = handlers(dir)
    const loop = loopOf("loop-p1")
    const replay = () => h.replay({ kind: "replay", loop, at: claim })
    // Read fresh, the code-only claim needs no replay.
    expect(await replay()).toEqual({ status: "not-needed" })
    h["replay-prepare"]({ kind: "replay-prepare", loop, at: claim })
    await readDone(dir, "loop-p1")
    git(dir, "update-ref", checkpointRef("loop-p1", 0), moved)
    // The start moved after the read: the replay judges what was read (the claim as the turn left it).
    expect(await replay()).toEqual({ status: "not-needed" })
    // Taken: the next replay reads the moved start, whose test differs from the claim's.
    expect(await replay()).toMatchObject({ status: "ran", putBack: ["test/sum.test.js"] })
  })

  it("are not used by the replay of another claim", async () => {
    const { dir, moved, claim, before } = repository("loop-p2")
    const h = handlers(dir)
    const loop = loopOf("loop-p2")
    h["replay-prepare"]({ kind: "replay-prepare", loop, at: before })
    await readDone(dir, "loop-p2")
    git(dir, "update-ref", checkpointRef("loop-p2", 0), moved)
    expect(await h.replay({ kind: "replay", loop, at: claim })).toMatchObject({ status: "ran" })
    // Dropped, not kept for a claim that will not come.
    expect(preparedRead(dir, "loop-p2")).toBeUndefined()
  })

  it("that fail are the replay's failure, and reject nothing before it asks", async () => {
    const dir = tempDir("ralph-replay-prepared-none-")
    const h = handlers(dir)
    const loop = loopOf("loop-p3")
    h["replay-prepare"]({ kind: "replay-prepare", loop, at: "0".repeat(40) })
    await readDone(dir, "loop-p3")
    expect(await h.replay({ kind: "replay", loop, at: "0".repeat(40) })).toMatchObject({ status: "could-not-run" })
  })
})
