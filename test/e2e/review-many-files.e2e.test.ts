// The reviewer's diff of a loop that changed 12,000 files, in the real OpenCode: the files go to git
// on its stdin, so the diff is read (its names alone pass ARG_MAX as arguments: git failed with
// E2BIG, and the reviewer was told "(no change to tracked files)").
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import type { MockRequest } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd } from "./helpers.js"

const harness = sharedHarness()

const MANY = 12_000
/** ~190 characters' path each: 2.3 MB of names. */
const FOLDER = `packages/a-package-with-a-rather-descriptive-name/src/components/${"generated-by-the-loop-".repeat(2)}`
const fileName = (i: number) =>
  `${FOLDER}/component-${String(i).padStart(5, "0")}-with-a-long-descriptive-name-as-real-projects-have.ts`
const CHECK = { name: "answer", kind: "test", command: 'test "$(cat answer.txt 2>/dev/null)" = 4' }
const isReview = (r: MockRequest) => r.system.includes("You review another coding agent's change")

/** Commits the many files with git's plumbing (one blob for all) and writes them out: git hashes nothing 12,000 times. */
function commitManyFiles(dir: string): void {
  const run = (args: string[], input?: string) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", ...args], {
      cwd: dir,
      input,
      encoding: "utf8",
    }).trim()
  const blob = run(["hash-object", "-w", "--stdin"], "export const generated = true\n")
  run(
    ["update-index", "-z", "--index-info"],
    Array.from({ length: MANY }, (_, i) => `100644 ${blob}\t${fileName(i)}\0`).join(""),
  )
  run(["checkout-index", "-a", "-f"])
  run(["commit", "-qm", "12,000 generated files"])
}

describe("review of a loop that changed 12,000 files", () => {
  it('the reviewer is sent their diff, not "no change"', async () => {
    const project = await harness().project("review-many-files", {
      pluginOptions: { strategy: "continue", checks: [CHECK], review: true },
      script: {
        main: (r) => {
          if (isReview(r)) return { text: "<verdict>approve</verdict>" }
          if (r.lastRole === "tool")
            return { text: "Removed the generated files and wrote the answer. <promise>DONE</promise>" }
          const command = "rm -r packages && echo 4 > answer.txt"
          return { toolCalls: [{ name: "bash", args: { command, description: "Remove the generated files" } }] }
        },
      },
    })
    commitManyFiles(project.dir)

    const session = await project.newSession()
    await project.command(session, "ralph", "remove the generated files and make answer.txt say 4")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 180_000)

    const [review] = project.requests("main").filter(isReview)
    expect(review?.lastUser).not.toContain("(no change to tracked files)")
    expect(review?.lastUser).toContain(`diff --git a/${fileName(0)} b/${fileName(0)}\ndeleted file mode 100644`)
    expect(review?.lastUser).toContain("the diff is cut here")
  }, 300_000)
})
