// The host port: everything the loop needs from the program it runs in (today OpenCode 1.x, through
// src/opencode/api.ts). Named after what the loop means, not after a host's calls, so that another
// host (OpenCode 2) can fit beside the 1.x one without touching the core. docs/architecture.md
// maps each operation to its OpenCode v1 call and its v2 equivalent.
//
// The data shapes (Session, Todo, a message with its parts) are OpenCode 1.x's: the core reads
// them as they are. Another host's adapter maps its own into them.
import type { Session, SessionMessagesResponse, Todo } from "@opencode-ai/sdk"

/** One message of a session with its parts, as the host stores it. */
export type MessageWithParts = SessionMessagesResponse[number]

/** A model, as the host names it. */
export interface ModelRef {
  providerID: string
  modelID: string
}

/** A prompt the loop sends into a session. */
export interface PromptInput {
  text: string
  agent?: string | undefined
  model?: ModelRef | undefined
}

export type ToastVariant = "info" | "success" | "warning" | "error"
export type LogLevel = "debug" | "info" | "warn" | "error"

/**
 * What the loop asks of its host. Every call that asks for something rejects when the host could
 * not do it; `toast` and `log` never throw (they only inform).
 */
export interface Host {
  // A turn and what was in it (that a turn ended comes as a HostEvent).
  /** The session's messages, oldest first: the turn that ended is read from them (src/loop/read-turn.ts). */
  readMessages(sessionID: string): Promise<MessageWithParts[]>
  /** The session's todo list. */
  todos(sessionID: string): Promise<Todo[]>
  /** True when the host runs no turn in the session. */
  isIdle(sessionID: string): Promise<boolean>

  // Prompts.
  /** Sends a prompt and returns once the host has it; the turn runs in the background. */
  send(sessionID: string, input: PromptInput): Promise<void>
  /** Sends a prompt and waits for the whole reply; resolves with the reply's own text. */
  ask(sessionID: string, input: PromptInput): Promise<string>
  /** Compaction: the host summarizes the session; resolves once the summary is written. */
  compact(sessionID: string, model: ModelRef): Promise<void>

  // Sessions.
  /** A new session; in `directory`'s own instance when given (a worktree loop's). */
  createSession(title: string, directory?: string): Promise<Session>
  /** Points the user's view at the session (nothing for a worktree loop: the user stays where they were). */
  selectSession(sessionID: string): Promise<void>
  deleteSession(sessionID: string): Promise<void>
  setTitle(sessionID: string, title: string): Promise<void>
  sessionInfo(sessionID: string): Promise<Session>
  /** Whether the host still has the session; undefined when it could not say. */
  sessionExists(sessionID: string): Promise<boolean | undefined>
  /** The project's sessions, or `directory`'s (listing them there starts that directory's instance). */
  listSessions(directory?: string): Promise<Session[]>

  // Other directories (worktree loops).
  /** Runs a slash command in a session of `directory`'s instance; resolves when its turn has ended. */
  runCommand(directory: string, sessionID: string, command: string, args: string): Promise<void>
  /** Ends `directory`'s instance (its plugin's dispose runs); the next call there starts a new one. */
  closeInstance(directory: string): Promise<void>

  // Configuration.
  /** The host's default model and small model ("provider/model"), when set. */
  defaultModels(): Promise<{ model?: string | undefined; small?: string | undefined }>

  // Telling the user.
  toast(variant: ToastVariant, title: string, message: string, duration?: number): void
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void
}

/** An error the host reports (on a reply, in an event, as a call's answer): src/host/error.ts reads it. */
interface HostError {
  name: string
  message: string
  statusCode?: number | undefined
  /** The host's own verdict on whether a retry may help. */
  retryable?: boolean | undefined
  headers?: Record<string, string> | undefined
  /** The provider's response body (its start). */
  body?: string | undefined
}

/** How the host said that a turn ended (OpenCode 1.x says it twice: by a status and by an idle event). */
export type IdleVia = "status" | "idle"

/** What happened in the host that the loop reacts to. */
export type HostEvent =
  | { kind: "busy"; sessionID: string; retry: boolean }
  /** A turn ended. */
  | { kind: "idle"; sessionID: string; via: IdleVia }
  | { kind: "error"; sessionID: string; error: HostError }
  | { kind: "compacted"; sessionID: string }
  /** A permission or a question waits for the user. */
  | { kind: "asked"; sessionID: string; requestID: string }
  | { kind: "answered"; sessionID: string; requestID: string }
  | { kind: "session-created"; sessionID: string; parentID?: string }
  | { kind: "session-deleted"; sessionID: string }

/**
 * What the host calls into the loop with: the inputs the core's handlers (src/hooks/) take, named
 * by concept. The 1.x adapter registers them as OpenCode's plugin hooks (src/instance.ts,
 * src/plugin.ts); the table in docs/architecture.md gives each one's v1 hook and v2 equivalent.
 * The plugin's hooks are checked against it by name (src/hooks/v1-hooks.ts: each input has its hook);
 * they keep OpenCode's signatures, so the shapes below describe what each input means.
 */
export interface HostHooks {
  /** Something happened (a turn began or ended, a session was created or deleted, …). Never blocks. */
  event(event: HostEvent): void
  /** The user sent a message (before the host stores it): text parts may be added to it. */
  userMessage(input: { sessionID: string; text: string }): Promise<void>
  /**
   * A slash command of the plugin's (/ralph, /cancel-ralph, …) was run in a session. The commands, and
   * the reviewer's agent, are declared to the host when it loads (src/hooks/config.ts).
   */
  command(input: { sessionID: string; command: string; arguments: string }): Promise<void>
  /** The model called one of the plugin's tools (ralph_done, ralph_status); resolves with its answer. */
  tool(input: { sessionID: string; name: string; args: unknown }): Promise<string>
  /** The model is about to call a tool: the loop may refuse it (a guard). */
  toolGuard(input: { sessionID: string; tool: string; callID: string; args: unknown }): Promise<void>
  /**
   * A shell is about to run, for a model's tool call (`callID`, as toolGuard had it), a person's shell
   * command in a session, or a terminal: the loop may add to its environment.
   */
  shellEnv(input: {
    cwd: string
    sessionID?: string | undefined
    callID?: string | undefined
  }): Promise<Record<string, string>>
  /** A request to the model is about to go out: the loop may trim its messages and tools (a control command's turn). */
  requestMessages(input: { sessionID: string; messages: MessageWithParts[] }): Promise<void>
  /** The model parameters of a request: the loop may cap its output (a control command's turn). */
  requestParams(input: { sessionID: string }): Promise<{ maxOutputTokens?: number | undefined }>
  /** The system text of a session's next request: the loop may add to it. */
  systemText(input: { sessionID?: string | undefined }): Promise<string[]>
  /** A text part the model completed (its `<remember>` tags). */
  textCompleted(input: { sessionID: string; text: string }): Promise<void>
  /** The host is about to compact a session: the loop may give the summary's instructions. */
  compacting(input: { sessionID: string }): Promise<{ prompt?: string | undefined }>
  /** The host would continue on its own after an automatic compaction: the loop may say no. */
  autoContinue(input: { sessionID: string }): Promise<boolean>
  /** The instance ends. */
  dispose(): Promise<void>
}
