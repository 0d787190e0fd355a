// Review in the real OpenCode: once a completion claim passes the checks, a fresh review session
// (the plugin's own: deleted after its verdict, never a loop, never continued) judges the change;
// a rejection sends its reasons into the loop's next prompt, an approval completes the loop.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { messageText, type MockRequest, type Responder } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const TEST_FILE = 'test "$(cat answer.txt 2>/dev/null)" = 4 || { echo "FAIL: answer.txt should say 4"; exit 1; }\n'
/** Every test script under tests/ must pass — so deleting the failing one makes the checks pass. */
const TESTS_CHECK = {
  name: "tests",
  kind: "test",
  command: 'for f in tests/*.sh; do [ -f "$f" ] || continue; sh "$f" || exit 1; done',
}
const REASON = "The test tests/add.sh was deleted instead of made to pass; restore it and make answer.txt say 4."

/** A request of the reviewer (its agent's system prompt), not of the loop's model. */
const isReview = (r: MockRequest) => r.system.includes("You review another coding agent's change")
const toolResult = (r: MockRequest): string => (r.lastRole === "tool" ? messageText(r.body.messages?.at(-1)) : "")
const loopPrompts = (project: Project) => project.requests("main").filter((r) => !isReview(r) && r.lastRole === "user")

/** A project whose one test fails until answer.txt says 4 (committed, so the loop's diff shows what it does to it). */
async function projectWithFailingTest(
  name: string,
  main: Responder,
  options: Record<string, unknown> = {},
): Promise<Project> {
  const project = await harness().project(name, {
    // guard off: these tests give the deleted test to the reviewer; the replay (issue 46) would refuse it first.
    pluginOptions: { strategy: "continue", checks: [TESTS_CHECK], review: true, guard: "off", ...options },
    script: { main },
  })
  mkdirSync(join(project.dir, "tests"), { recursive: true })
  writeFileSync(join(project.dir, "tests", "add.sh"), TEST_FILE)
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", "add", "tests"], { cwd: project.dir })
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "the failing test"], {
    cwd: project.dir,
  })
  return project
}

describe("review", () => {
  it("rejects a claim that deleted the test; its reasons reach the next prompt; the restored test is approved and the loop completes", async () => {
    const project = await projectWithFailingTest(
      "review-deleted-test",
      (r) => {
        if (isReview(r))
          return r.lastUser.includes("deleted file mode")
            ? { text: `<verdict>reject</verdict>\n- ${REASON}` }
            : { text: "Looks right. <verdict>approve</verdict>" }
        const rejected = r.lastUser.includes("A reviewer rejected")
        // After the rejection the model first asks ralph_status, then restores the test and writes the answer.
        if (rejected && r.lastRole === "user") return { toolCalls: [{ name: "ralph_status", args: {} }] }
        if (rejected && toolResult(r).startsWith("Ralph loop —"))
          return {
            toolCalls: [
              { name: "write", args: { filePath: join(project.dir, "tests/add.sh"), content: TEST_FILE } },
              { name: "write", args: { filePath: join(project.dir, "answer.txt"), content: "4\n" } },
            ],
          }
        if (r.lastRole === "tool")
          return {
            text: rejected
              ? "Restored the test and wrote the answer. <promise>DONE</promise>"
              : "The failing test is gone. <promise>DONE</promise>",
          }
        return {
          toolCalls: [{ name: "bash", args: { command: "rm tests/add.sh", description: "Remove the failing test" } }],
        }
        // activation "always": a new session's first message starts a loop — but never a review session's.
      },
      { activation: "always" },
    )
    const session = await project.newSession()
    await project.command(session, "ralph", "make tests/add.sh pass")
    const done = await waitForToast(project, /^Ralph · done/)
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    // Two reviews: the first saw the deleted test and rejected, the second approved.
    const reviews = project.requests("main").filter(isReview)
    expect(reviews).toHaveLength(2)
    expect(reviews[0]?.lastUser).toContain("## Task\nmake tests/add.sh pass")
    expect(reviews[0]?.lastUser).toMatch(/deleted file mode[\s\S]*-test "\$\(cat answer.txt/)
    expect(reviews[0]?.lastUser).toContain("- tests (test): passed")
    expect(reviews[1]?.lastUser).toContain("+4")
    expect(reviews[1]?.lastUser).not.toContain("deleted file mode")
    // The loop's second prompt carries the reviewer's reasons verbatim.
    const prompts = loopPrompts(project)
    expect(prompts).toHaveLength(2)
    expect(prompts[1]?.lastUser).toContain(`- ${REASON}`)
    expect(prompts[1]?.lastUser).toContain("rejection 1 of 3")
    expect(done.properties.message).toContain("the checks pass; the reviewer approved")
    expect(loop?.detail).toContain("the reviewer approved")
    expect(loop?.review).toMatchObject({ reviews: 2, rejections: 0, last: { verdict: "approve" } })
    // Each review's one reply (the mock's 120 tokens) counts in the loop's usage, shown apart by ralph_status.
    expect(loop?.review?.usage.tokens).toBe(240)
    const status = project
      .requests("main")
      .map(toolResult)
      .find((t) => t.startsWith("Ralph loop —"))
    expect(status).toContain(
      "Review: 1 review(s) · 1 of 3 rejections in a row · review tokens 120 · review cost 0.00 · last verdict: reject",
    )

    // The review sessions: titled, deleted afterwards, never a loop of their own, never prompted again.
    const created = project.events
      .of("session.created")
      .filter((e) => String(e.properties.info?.title).startsWith("Ralph review · "))
    expect(created.map((e) => e.properties.info?.title)).toEqual([
      "Ralph review · make tests/add.sh pass",
      "Ralph review · make tests/add.sh pass",
    ])
    const deleted = new Set(project.events.of("session.deleted").map((e) => String(e.properties.info?.id)))
    for (const e of created) expect(deleted.has(String(e.properties.info?.id))).toBe(true)
    const { data: sessions } = await project.client.session.list()
    expect((sessions ?? []).filter((s) => s.title.startsWith("Ralph review"))).toEqual([])
    expect(project.loops().map((l) => l.id)).toEqual([session])
  })

  it("a ralph_done claim is reviewed the same way: the reviewer reads its summary and evidence", async () => {
    const project = await projectWithFailingTest("review-done-tool", (r) => {
      if (isReview(r)) return { text: "<verdict>approve</verdict>" }
      if (toolResult(r).startsWith("Accepted")) return { text: "Waiting for the review." }
      if (r.lastRole === "tool")
        return {
          toolCalls: [
            { name: "ralph_done", args: { summary: "answer.txt now says 4", evidence: ["sh tests/add.sh: exit 0"] } },
          ],
        }
      return { toolCalls: [{ name: "write", args: { filePath: join(project.dir, "answer.txt"), content: "4\n" } }] }
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "make tests/add.sh pass")
    const done = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(
      project
        .requests("main")
        .map(toolResult)
        .find((t) => t.startsWith("Accepted")),
    ).toContain("once a reviewer has approved the change")
    const [review] = project.requests("main").filter(isReview)
    expect(review?.lastUser).toContain(
      "## The agent's claim\nSummary: answer.txt now says 4\nEvidence:\n- sh tests/add.sh: exit 0",
    )
    expect(done.properties.message).toContain("ralph_done was called and the checks pass; the reviewer approved")
  })

  it("the reviewer runs on OpenCode's small_model with the plugin's read-only agent: no write, edit or patch tool is offered, and a shell command other than git's reading ones is denied", async () => {
    const triedRm: string[] = []
    const project = await harness().project("review-read-only", {
      pluginOptions: { strategy: "continue", checks: [TESTS_CHECK], review: true },
      models: ["mock-small"],
      opencodeConfig: { small_model: "mock/mock-small" },
      script: {
        main: (r) => {
          if (isReview(r)) {
            // The first review turn tries to change a file; whatever it is told, the next answer approves.
            if (r.lastRole === "user" && triedRm.length === 0) {
              triedRm.push(r.lastUser)
              return {
                toolCalls: [
                  { name: "bash", args: { command: "rm answer.txt", description: "Change a file while reviewing" } },
                ],
              }
            }
            return { text: "<verdict>approve</verdict>" }
          }
          if (r.lastRole === "tool") return { text: "Done. <promise>DONE</promise>" }
          return { toolCalls: [{ name: "write", args: { filePath: join(project.dir, "answer.txt"), content: "4\n" } }] }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "make answer.txt say 4")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const reviews = project.requests("main").filter(isReview)
    expect(reviews.length).toBeGreaterThanOrEqual(1)
    expect(new Set(reviews.map((r) => r.body.model))).toEqual(new Set(["mock-small"]))
    expect(
      new Set(
        project
          .requests("main")
          .filter((r) => !isReview(r))
          .map((r) => r.body.model),
      ),
    ).toEqual(new Set(["mock-model"]))
    const offered = (r: MockRequest) =>
      (r.body.tools ?? []).map((t) => (t as { function?: { name?: string } }).function?.name)
    expect(offered(reviews[0]!)).toContain("read")
    for (const tool of ["write", "edit", "patch", "apply_patch"]) expect(offered(reviews[0]!)).not.toContain(tool)
    expect(offered(loopPrompts(project)[0]!)).toContain("write")
    expect(readFileSync(join(project.dir, "answer.txt"), "utf8")).toBe("4\n")
  })

  it("a reply without a verdict is asked for once more; still none counts as approval, with a warning", async () => {
    const project = await projectWithFailingTest("review-no-verdict", (r) => {
      if (isReview(r)) return { text: "Hmm, it is probably fine." }
      if (r.lastRole === "tool") return { text: "Done. <promise>DONE</promise>" }
      return { toolCalls: [{ name: "write", args: { filePath: join(project.dir, "answer.txt"), content: "4\n" } }] }
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "make tests/add.sh pass")
    const warning = await waitForToast(project, /^Ralph · review gave no verdict/)
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const reviews = project.requests("main").filter(isReview)
    expect(reviews).toHaveLength(2)
    expect(reviews[1]?.lastUser).toMatch(/^Your reply had no verdict in the required format/)
    expect(warning.properties.variant).toBe("warning")
    expect(loop?.detail).toContain("the reviewer gave no verdict (counted as approval: the checks passed)")
    expect(loop?.review?.last?.verdict).toBe("none")
  })

  it("stops with reason review after review.maxRejections rejections in a row, with a toast", async () => {
    const project = await projectWithFailingTest(
      "review-keeps-rejecting",
      (r) => {
        if (isReview(r)) return { text: `<verdict>reject</verdict>\n- ${REASON}` }
        if (r.lastRole === "tool") return { text: "Done. <promise>DONE</promise>" }
        return {
          toolCalls: [
            { name: "bash", args: { command: "rm -f tests/add.sh", description: "Remove the failing test" } },
          ],
        }
      },
      { review: { maxRejections: 2 } },
    )
    const session = await project.newSession()
    await project.command(session, "ralph", "make tests/add.sh pass")
    const toast = await waitForToast(project, /^Ralph · stopped: the reviewer kept rejecting/)
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "review" })
    expect(toast.properties.variant).toBe("warning")
    expect(toast.properties.message).toContain(
      "the reviewer rejected 2 completion claims in a row (review.maxRejections)",
    )
    expect(project.requests("main").filter(isReview)).toHaveLength(2)
    expect(loopPrompts(project)).toHaveLength(2)
    expect(loop?.review).toMatchObject({ reviews: 2, rejections: 2, last: { verdict: "reject", reasons: [REASON] } })
  })
})
