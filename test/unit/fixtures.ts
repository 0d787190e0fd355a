// Builders for loops and OpenCode messages in unit tests.
import type { AssistantMessage, Part, UserMessage } from "@opencode-ai/sdk"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { newLoop, type Loop, type LoopSettings } from "../../src/loop/loop.js"
import type { MessageWithParts } from "../../src/loop/read-turn.js"

export function loop(overrides: Partial<Loop> = {}, settings: Partial<LoopSettings> = {}): Loop {
  const { activation: _activation, ...defaults } = DEFAULT_SETTINGS
  return {
    ...newLoop("ses_a", "build it", { ...defaults, maxRetries: 3, settleMs: 0, ...settings }, 0),
    phase: "deciding",
    needsInstruction: false,
    ...overrides,
  }
}

let seq = 0
const id = (prefix: string) => `${prefix}_${String(++seq).padStart(4, "0")}`

export function user(text: string, extra: Partial<UserMessage> = {}): MessageWithParts {
  const info: UserMessage = {
    id: id("msg"),
    sessionID: "ses_a",
    role: "user",
    time: { created: 0 },
    agent: "build",
    model: { providerID: "mock", modelID: "mock-model" },
    ...extra,
  }
  return { info, parts: [textPart(info.id, text)] }
}

export function assistant(
  texts: Array<string | Partial<Part>>,
  extra: Partial<AssistantMessage> = {},
): MessageWithParts {
  const info: AssistantMessage = {
    id: id("msg"),
    sessionID: "ses_a",
    role: "assistant",
    time: { created: 0, completed: 1 },
    parentID: "msg_0000",
    modelID: "mock-model",
    providerID: "mock",
    mode: "build",
    path: { cwd: "/", root: "/" },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    ...extra,
  }
  const parts = texts.map((t) =>
    typeof t === "string" ? textPart(info.id, t) : ({ ...textPart(info.id, ""), ...t } as Part),
  )
  return { info, parts }
}

function textPart(messageID: string, text: string): Part {
  return { id: id("prt"), sessionID: "ses_a", messageID, type: "text", text }
}
