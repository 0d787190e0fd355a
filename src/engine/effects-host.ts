// The effect kinds that are calls to OpenCode: sessions, their messages and todos, prompts, toasts
// and log lines. Declared into the kernel's `Effects` (src/effects/kernel.ts); handled in handlers/host.ts.
import type { Session, Todo } from "@opencode-ai/sdk"
import type { Loop } from "../loop/loop.js"
import type { LogLevel, PromptInput } from "../host/port.js"
import type { MessageWithParts } from "../loop/read-turn.js"
import type { Notice } from "../loop/notices.js"

type ModelRef = { providerID: string; modelID: string }

declare module "../effects/kernel.js" {
  interface Effects {
    messages: { ask: { sessionID: string }; result: MessageWithParts[] }
    sessions: { ask: object; result: Session[] }
    /** undefined: OpenCode could not say. */
    "session-exists": { ask: { sessionID: string }; result: boolean | undefined }
    /** The session as OpenCode has it (its parentID says whether it is a subagent's). */
    session: { ask: { sessionID: string }; result: Session }
    todos: { ask: { sessionID: string }; result: Todo[] }
    "is-idle": { ask: { sessionID: string }; result: boolean }
    summarize: { ask: { sessionID: string; model: ModelRef }; result: void }
    "create-session": { ask: { title: string }; result: { id: string } }
    "select-session": { ask: { sessionID: string }; result: void }
    prompt: { ask: { loop: Loop; sessionID: string; input: PromptInput }; result: void }
    /** A prompt outside any loop (/ralph-plan asking again). */
    ask: { ask: { sessionID: string; text: string }; result: void }
    "delete-session": { ask: { sessionID: string }; result: void }
    /** Renames a session (how a stopped loop ended, in the TUI's session list). */
    "set-title": { ask: { sessionID: string; title: string }; result: void }
    // Instant effects (INSTANT): done at once, nothing can happen in between.
    toast: { ask: { notice: Notice }; result: void }
    log: { ask: { level: LogLevel; message: string; extra?: Record<string, unknown>; cause?: unknown }; result: void }
  }
}
