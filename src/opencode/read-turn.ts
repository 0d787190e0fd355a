// Reading OpenCode's message list: the turn that just ended, and the summary a compaction wrote.
import type { AssistantMessage, Message, Part, TextPart } from "@opencode-ai/sdk"
import type { Turn } from "../loop/turn.js"

export interface MessageWithParts {
  info: Message
  parts: Part[]
}

const ownText = (part: Part): part is TextPart => part.type === "text" && !part.synthetic && !part.ignored

const isSummary = (info: Message): boolean =>
  info.role === "assistant" && (info.summary === true || info.mode === "compaction")

/** The turn = the assistant messages after the last user message. */
export function readTurn(messages: readonly MessageWithParts[]): Turn {
  let start = messages.length
  while (start > 0 && messages[start - 1]?.info.role !== "user") start -= 1
  const lastUser = messages[start - 1]?.info
  const assistants = messages.slice(start).filter((m) => m.info.role === "assistant" && !isSummary(m.info))
  const last = assistants.at(-1)?.info as AssistantMessage | undefined

  const turn: Turn = {
    texts: assistants.flatMap((m) => m.parts.filter(ownText).map((p) => p.text)),
  }
  if (last) {
    turn.lastAssistantID = last.id
    turn.model = { providerID: last.providerID, modelID: last.modelID }
    if (last.error) turn.error = { name: last.error.name, message: errorMessage(last.error) }
  }
  if (lastUser?.role === "user") {
    turn.agent = lastUser.agent
    turn.model ??= lastUser.model
  }
  return turn
}

/** The text of the newest summary message (what `session.summarize` produced). */
export function readSummary(messages: readonly MessageWithParts[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as MessageWithParts
    if (!isSummary(message.info)) continue
    const text = message.parts
      .filter((p): p is TextPart => p.type === "text" && !p.ignored)
      .map((p) => p.text)
      .join("\n")
      .trim()
    if (text) return text
  }
  return undefined
}

function errorMessage(error: NonNullable<AssistantMessage["error"]>): string {
  const data = (error as { data?: { message?: unknown } }).data
  return typeof data?.message === "string" ? data.message : error.name
}
