// The scripted model of the soak. Every loop and every plain chat session has a token
// (`loop-long`, `loop-w07`, `chat-c03`) in its task or messages, so each request the model gets can
// be told apart: which loop or chat it is for, which iteration, and whether anything of another
// loop leaked into it. A loop's turn is one small tool call (bash writes a line to the work tree,
// which is measured progress) and a short reply; the promise comes at the loop's target iteration,
// and not before `mayFinish()` says so (the churn keeps the wide loops going until it is over).
import { gate, messageText, type Gate, type MockRequest, type Reply, type Script } from "../harness/mock-model.js"

export const TOKEN = /\b(?:loop|chat)-[a-z0-9]+\b/g
const HEADER = /^\[Ralph loop · iteration (\d+) of \d+ · (same session|fresh session|resuming)\]/
const CONTROL = "[ralph-loop control]"

export type PromptKind = "first" | "next" | "resume"

/** What a request's last user message is: a loop's prompt, a chat message, a control command's turn. */
export type PromptInfo =
  | { of: "loop"; token: string; iteration: number; kind: PromptKind }
  | { of: "chat"; token: string; message: number }
  | { of: "control" }
  | { of: "other" }

export function promptInfo(lastUser: string): PromptInfo {
  if (lastUser.startsWith(CONTROL)) return { of: "control" }
  const token = lastUser.match(TOKEN)?.[0]
  if (!token) return { of: "other" }
  if (token.startsWith("chat-")) return { of: "chat", token, message: Number(/message (\d+)/.exec(lastUser)?.[1] ?? 0) }
  const header = HEADER.exec(lastUser)
  if (!header) return { of: "loop", token, iteration: 1, kind: "first" }
  return { of: "loop", token, iteration: Number(header[1]), kind: header[2] === "resuming" ? "resume" : "next" }
}

/** The tokens anywhere in the conversation a request carries (system prompt aside: it is OpenCode's). */
export function tokensIn(request: MockRequest): string[] {
  const texts = (request.body.messages ?? [])
    .filter((m) => m.role !== "system")
    .map((m) => `${messageText(m)} ${JSON.stringify(m.tool_calls ?? "")}`)
  return [...new Set(texts.join("\n").match(TOKEN) ?? [])].sort()
}

/**
 * The file a loop writes its steps to, named without its token: every loop's handoff lists the
 * files changed in the shared work tree (all loops' files), which is a fact, not a foreign prompt.
 */
const recordFile = (token: string) => `work/${token.replace(/^loop-/, "")}.txt`
export const loopTask = (token: string) =>
  `${token}: record each step in ${recordFile(token)} until the record is complete`
export const chatText = (token: string, message: number) => `${token} message ${message}: tell me one short fact`

export class SoakModel {
  /** Iteration at which each loop may promise. */
  private readonly targets = new Map<string, number>()
  /** Loops whose next prompt's reply streams its first chunk and then waits (for an Esc to land mid-turn). */
  private readonly holds = new Map<string, Gate>()
  private burstUntil = 0
  /** Until this says yes, no loop promises (it goes on past its target). */
  mayFinish: () => boolean = () => true

  plan(token: string, target: number): void {
    this.targets.set(token, target)
  }

  /** The next prompt of `token` is held mid-stream until the returned gate opens. */
  hold(token: string): Gate {
    const held = gate()
    this.holds.set(token, held)
    return held
  }

  /** Every turn request (main and summary) is answered 429 with retry-after 1 s for `ms`. */
  burst(ms: number): void {
    this.burstUntil = Date.now() + ms
  }

  script(): Script {
    return { main: (r) => this.main(r), compaction: (r) => this.summary(r) }
  }

  private main(r: MockRequest): Reply {
    if (Date.now() < this.burstUntil) return RATE_LIMITED
    const info = promptInfo(r.lastUser)
    if (info.of === "control" || info.of === "other") return { text: "OK" }
    if (info.of === "chat") return { text: `a short fact for ${info.token}, message ${info.message}` }
    const { token, iteration } = info
    if (r.lastRole === "user") {
      const held = this.holds.get(token)
      this.holds.delete(token)
      return {
        text: `${held ? "held " : ""}step ${iteration} of ${token}: writing it down`,
        toolCalls: [
          {
            name: "bash",
            args: {
              command: `mkdir -p work && echo "step ${iteration}" > ${recordFile(token)}`,
              description: `Record step ${iteration}`,
            },
          },
        ],
        ...(held ? { holdAfterFirstChunk: held.opened } : {}),
      }
    }
    const done = iteration >= (this.targets.get(token) ?? Number.POSITIVE_INFINITY) && this.mayFinish()
    return {
      text: done
        ? `step ${iteration} of ${token} recorded; the record is complete. <promise>DONE</promise>`
        : `step ${iteration} of ${token} recorded; more steps to go`,
    }
  }

  private summary(r: MockRequest): Reply {
    if (Date.now() < this.burstUntil) return RATE_LIMITED
    const token = tokensIn(r).find((t) => t.startsWith("loop-")) ?? "none"
    return { text: `SUMMARY for ${token}: steps recorded so far in ${recordFile(token)}; go on with the next step.` }
  }
}

const RATE_LIMITED: Reply = {
  error: { status: 429, message: "Rate limit reached for requests (soak burst)", headers: { "retry-after": "1" } },
}
