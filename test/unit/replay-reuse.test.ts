// A claim through ralph_done is replayed by the tool and again at its turn's end (issue 46): of the
// same trees, the second takes the first's result, and the checks run once; a changed tree runs them again.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { checkpointRef } from "../../src/checkpoints/checkpoints.js"
import { CheckGroups } from "../../src/checks/run-checks.js"
import { runReplay } from "../../src/replay/replay-run.js"
import { commitAll, git, makeRepo } from "../git-fixture.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

describe("the replay of the same trees", () => {
  it("runs its checks once for two claims of the same work, again once the work changed", async () => {
    const dir = tempDir("ralph-replay-reuse-")
    const counter = join(tempDir("ralph-replay-runs-"), "runs")
    mkdirSync(join(dir, "test"))
    makeRepo(dir, { "sum.js": "a - b\n", "test/sum.test.js": "expects 3\n" })
    git(dir, "update-ref", checkpointRef("loop-1", 0), "HEAD")
    // The loop changed a test of the start: the replay is needed (the test is put back).
    writeFileSync(join(dir, "test", "sum.test.js"), "expects 0\n")
    commitAll(dir, "the claim's work")
    const check = { name: "unit", kind: "test" as const, command: `echo run >> ${JSON.stringify(counter)}` }
    const replay = () =>
      runReplay({
        directory: dir,
        loopID: "loop-1",
        at: git(dir, "rev-parse", "HEAD"),
        checks: [check],
        keep: [],
        groups: new CheckGroups(),
        alive: () => true,
      })
    const first = await replay()
    expect(first).toMatchObject({ status: "ran", putBack: ["test/sum.test.js"] })
    expect(await replay()).toEqual(first)
    expect(readFileSync(counter, "utf8")).toBe("run\n")
    writeFileSync(join(dir, "sum.js"), "a + b\n")
    commitAll(dir, "more work")
    expect(await replay()).toMatchObject({ status: "ran" })
    expect(readFileSync(counter, "utf8")).toBe("run\nrun\n")
  })
})
