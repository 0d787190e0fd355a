// Reading OpenCode's message list: the turn that just ended, the summary a compaction wrote, and
// what the session has cost so far.
import type { AssistantMessage, Message, Part, SessionMessagesResponse, TextPart, ToolPart } from "@opencode-ai/sdk"
import type { Usage } from "./loop.js"
import { CONTROL_MARKER } from "../host/commands.js"
import type { Turn } from "./turn.js"
import { parseError } from "../host/error.js"

/** One entry of `session.messages`: a message and its parts. */
export type MessageWithParts = SessionMessagesResponse[number]

const ownText = (part: Part): part is TextPart => part.type === "text" && !part.synthetic && !part.ignored

const isSummary = (info: Message): boolean =>
  info.role === "assistant" && (info.summary === true || info.mode === "compaction")

const isCompactionRequest = (message: MessageWithParts): boolean =>
  message.info.role === "user" && message.parts.some((p) => p.type === "compaction")

/** A user message a control command (/ralph-status …) produced: its turn is not a loop turn. */
export const isControlMessage = (message: MessageWithParts): boolean =>
  message.info.role === "user" && message.parts.some((p) => p.type === "text" && p.text.startsWith(CONTROL_MARKER))

/**
 * The turn = the assistant messages after the last real user message, up to the next user message.
 * Control-command turns are skipped; after a compaction, the turn is the one before it.
 */
export function readTurn(messages: readonly MessageWithParts[]): Turn {
  let userIndex = messages.length - 1
  let compacted = false
  for (; userIndex >= 0; userIndex -= 1) {
    const message = messages[userIndex] as MessageWithParts
    if (message.info.role !== "user" || isControlMessage(message)) continue
    // Walking back from the end, a compaction met before the real user message came after its turn.
    if (isCompactionRequest(message)) {
      compacted = true
      continue
    }
    break
  }
  let end = userIndex + 1
  while (end < messages.length && messages[end]?.info.role !== "user") end += 1
  const lastUser = messages[userIndex]?.info
  const assistants = messages.slice(userIndex + 1, end).filter((m) => m.info.role === "assistant" && !isSummary(m.info))
  const last = assistants.at(-1)?.info as AssistantMessage | undefined

  const turn: Turn = {
    texts: assistants.flatMap((m) => m.parts.filter(ownText).map((p) => p.text)),
  }
  if (compacted) turn.compacted = true
  const doneCall = lastDoneCall(assistants)
  if (doneCall) turn.doneCall = doneCall
  if (last) {
    turn.lastAssistantID = last.id
    turn.model = { providerID: last.providerID, modelID: last.modelID }
    turn.finish = last.finish
    if (last.error) turn.error = parseError(last.error)
    else if (last.time.completed === undefined) turn.interrupted = true
  }
  if (lastUser?.role === "user") {
    turn.agent = lastUser.agent
    turn.model ??= lastUser.model
  }
  return turn
}

/** The name of the tool with which the model declares the task (or story) done. */
export const DONE_TOOL = "ralph_done"

/** The arguments of the turn's last completed ralph_done call (what the model claimed), if any. */
function lastDoneCall(assistants: readonly MessageWithParts[]): Turn["doneCall"] {
  const calls = assistants.flatMap((m) =>
    m.parts.filter((p): p is ToolPart => p.type === "tool" && p.tool === DONE_TOOL && p.state.status === "completed"),
  )
  const last = calls.at(-1)
  const input = last?.state.input
  if (!last || !input) return undefined
  const evidence = Array.isArray(input.evidence)
    ? input.evidence.map(String)
    : typeof input.evidence === "string"
      ? [input.evidence]
      : []
  return { summary: typeof input.summary === "string" ? input.summary : "", evidence, messageID: last.messageID }
}

/** A summary OpenCode finished writing (one a crash or an error cut off is no handoff). */
const isFinishedSummary = (info: Message): boolean =>
  isSummary(info) && info.role === "assistant" && info.time.completed !== undefined && !info.error

/** The text of the newest finished summary message (what `session.summarize` produced). */
export function readSummary(messages: readonly MessageWithParts[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as MessageWithParts
    if (!isFinishedSummary(message.info)) continue
    const text = message.parts
      .filter((p): p is TextPart => p.type === "text" && !p.ignored)
      .map((p) => p.text)
      .join("\n")
      .trim()
    if (text) return text
  }
  return undefined
}

/** Tokens (input + output + reasoning) and cost of every assistant message of a session. */
export function sessionUsage(messages: readonly MessageWithParts[]): Usage {
  let tokens = 0
  let cost = 0
  for (const { info } of messages) {
    if (info.role !== "assistant") continue
    tokens += (info.tokens?.input ?? 0) + (info.tokens?.output ?? 0) + (info.tokens?.reasoning ?? 0)
    cost += info.cost ?? 0
  }
  return { tokens, cost }
}
