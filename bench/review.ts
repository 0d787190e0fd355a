// Benchmark 10 — what a review costs (issue 23), in the real OpenCode with the scripted model. A loop
// writes a 500-line file and claims done; its check passes. With review on, the reviewer (the mock,
// approving at once) gets the loop's diff: its request's size is what a paid reviewer model would
// bill as input (≈ 4 bytes per token). The time from the end of the claiming reply to the loop's
// completion toast is measured with review on and off — with a mock that answers at once, this is
// the plugin's and OpenCode's own overhead (a real reviewer adds its model's time on top).
import { startHarness, type Project } from "../test/harness/harness.js"
import type { MockRequest } from "../test/harness/mock-model.js"
import { waitUntil } from "../test/harness/wait.js"
import { median, QUICK } from "./util.js"

export interface ReviewCostResult {
  runs: number
  diffLines: number
  /** The reviewer's request for that diff: bytes, ≈ tokens, and of them the diff, the system prompt, the tools. */
  request: {
    bytes: number
    approxTokens: number
    diffBytes: number
    systemBytes: number
    toolsBytes: number
    requests: number
  }
  /** Claim (end of the reply with the promise) → completion toast, median ms. */
  claimToCompletionMs: { withoutReview: number; withReview: number }
}

const LINES = 500
const isReview = (r: MockRequest) => r.system.includes("You review another coding agent's change")
const bytesOf = (value: unknown) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)))
const bigFile = `${Array.from(
  { length: LINES },
  (_, i) => `export const value${i} = compute(${i}, "line ${i} of the generated table")`,
).join("\n")}\n`

async function oneLoop(project: Project): Promise<{ ms: number; review?: MockRequest }> {
  const session = await project.newSession()
  await project.command(session, "ralph", "generate the value table in table.ts")
  const done = await project.events.waitFor(
    (e) => e.type === "tui.toast.show" && /^Ralph · done/.test(String(e.properties.title)),
    "the done toast",
    60_000,
  )
  await waitUntil(() => project.loops()[0]?.phase === "stopped", "the loop's stop", 60_000)
  await project.waitForIdle()
  const claim = project.requests("main").find((r) => !isReview(r) && r.lastRole === "tool")
  if (!claim?.endedAt) throw new Error("no claiming reply was logged")
  return { ms: done.at - claim.endedAt, review: project.requests("main").find(isReview) }
}

export async function runReviewCostBench(log: (line: string) => void): Promise<ReviewCostResult> {
  const runs = QUICK ? 2 : 5
  const harness = await startHarness()
  try {
    const times = { withoutReview: [] as number[], withReview: [] as number[] }
    let review: MockRequest | undefined
    for (let i = 0; i < runs; i += 1) {
      for (const on of [false, true]) {
        log(`review cost: run ${i + 1} of ${runs}, review ${on ? "on" : "off"}`)
        const project = await harness.project(`review-${on ? "on" : "off"}-${i}`, {
          pluginOptions: {
            strategy: "continue",
            review: on,
            checks: [{ name: "table", kind: "test", command: "test -f table.ts" }],
          },
          script: {
            main: (r) =>
              isReview(r)
                ? { text: "<verdict>approve</verdict>" }
                : r.lastRole === "tool"
                  ? { text: "Wrote the table. <promise>DONE</promise>" }
                  : { toolCalls: [{ name: "write", args: { filePath: "table.ts", content: bigFile } }] },
          },
        })
        const { ms, review: request } = await oneLoop(project)
        ;(on ? times.withReview : times.withoutReview).push(ms)
        if (on) review = request
        project.close()
      }
    }
    if (!review) throw new Error("no review request was logged")
    const reviewRequests = 1
    return {
      runs,
      diffLines: LINES,
      request: {
        bytes: review.bytes,
        approxTokens: Math.round(review.bytes / 4),
        diffBytes: Buffer.byteLength(bigFile),
        systemBytes: bytesOf(review.body.messages?.filter((m) => m.role === "system")),
        toolsBytes: bytesOf(review.body.tools),
        requests: reviewRequests,
      },
      claimToCompletionMs: { withoutReview: median(times.withoutReview), withReview: median(times.withReview) },
    }
  } finally {
    await harness.stop()
  }
}
