// The simulator's OpenCode as the loop reaches it: the host port (src/host/port.ts), implemented
// against the simulated sessions. The plugin's code under test holds this as its `Host` (the hooks'
// `ctx.api`), and the simulator's handlers of the calls to OpenCode go through it (sim.ts), so a change
// to the port fails `npm run typecheck` here as it does in the OpenCode adapter (src/opencode/api.ts).
//
// The sessions live here; what OpenCode makes happen when called (it publishes events, runs a turn,
// runs a command in another instance) is the world's, which also checks the invariants: `SimWorld`.
import type { Session, Todo } from "@opencode-ai/sdk"
import type { Host, MessageWithParts, ModelRef, PromptInput } from "../../src/host/port.js"

/** An OpenCode call that failed (a deleted session, …): production catches these. */
export class SimCallError extends Error {
  override readonly name = "SimCallError"
}

/** A session as OpenCode holds it, with what the world notes about it for its invariants. */
export interface SimSession {
  id: string
  parentID?: string
  title: string
  created: number
  /** Event number of the last message the user typed here (not a command's, not the plugin's). */
  lastUserSeq?: number
  deleted: boolean
  /** OpenCode's status: busy/retry seen, no idle since. */
  busy: boolean
  /** Event number of the last busy/retry (not the plugin's own summarize) since the last idle. */
  lastBusySeq?: number
  messages: MessageWithParts[]
  todos: Todo[]
  // For the continuations' invariants (13–17):
  /** The busy→idle transition (its idle's event number) a continuation may answer, and whether its turn ended in an error. */
  contCredit?: { seq: number; errored: boolean }
  /** An error was seen in the turn under way (session.error, or an assistant message with an error). */
  turnErrored: boolean
  /** Event number of the last continuation sent here. */
  lastContSeq: number
  todoStreak: number
  completedAtCont?: number
  autoCount: number
  /** /cancel-ralph here, and the user has not written since. */
  cancelled: boolean
  /** Event number of the last idle with no busy before it (OpenCode's answer to Esc on an idle session). */
  lastStrayIdleSeq?: number
  /** How the last busy→idle transition was announced: its other announcement is not a stray idle. */
  idleEcho?: "status" | "idle"
  /** Permission and question requests asked here and not answered. */
  pending: Set<string>
}

/** What OpenCode makes happen in the world when the loop calls it (sim.ts's World). */
export interface SimWorld {
  /** The simulated clock. */
  now(): number
  /** A fresh number for an id (sessions, messages and parts share one counter). */
  nextID(): number
  /** A session the plugin asked for was created: OpenCode publishes `session.created`. */
  created(session: SimSession): Promise<void>
  /** The plugin's own compaction of the session runs, and the session goes idle after it. */
  compacted(sessionID: string): Promise<void>
  /** OpenCode deletes the session and publishes `session.deleted`. */
  deleted(sessionID: string): Promise<void>
  /** A prompt whose reply the plugin waits for (the review) runs its turn: the reply's text. */
  replied(session: SimSession, text: string): Promise<string>
  /** A slash command ran in another directory's instance (a worktree loop's /ralph). */
  commandRan(directory: string): void
}

export class SimHost implements Host {
  readonly sessions = new Map<string, SimSession>()
  /** The sessions in the order they were created. */
  readonly order: SimSession[] = []

  constructor(private readonly world: SimWorld) {}

  /** The session, unless OpenCode never had it or deleted it. */
  live(sessionID: string): SimSession | undefined {
    const s = this.sessions.get(sessionID)
    return s && !s.deleted ? s : undefined
  }

  /** The session, or the call `what` fails as OpenCode's does. */
  mustLive(sessionID: string, what: string): SimSession {
    const s = this.live(sessionID)
    if (!s) throw new SimCallError(`${what} ${sessionID}: NotFoundError`)
    return s
  }

  /** A session appears in OpenCode (no event: the caller publishes it). */
  add(id: string, parentID?: string, title = "sim"): SimSession {
    const s: SimSession = {
      id,
      title,
      created: this.world.now(),
      deleted: false,
      busy: false,
      messages: [],
      todos: [],
      turnErrored: false,
      lastContSeq: 0,
      todoStreak: 0,
      autoCount: 0,
      cancelled: false,
      pending: new Set(),
      ...(parentID ? { parentID } : {}),
    }
    this.sessions.set(id, s)
    this.order.push(s)
    return s
  }

  async readMessages(sessionID: string): Promise<MessageWithParts[]> {
    return [...this.mustLive(sessionID, "session.messages").messages]
  }

  async todos(sessionID: string): Promise<Todo[]> {
    return [...this.mustLive(sessionID, "session.todo").todos]
  }

  async isIdle(sessionID: string): Promise<boolean> {
    return !this.sessions.get(sessionID)?.busy
  }

  /** OpenCode takes the prompt; what it does next (chat.message, the turn) the world plays as the effect is issued. */
  async send(sessionID: string, _input: PromptInput): Promise<void> {
    this.mustLive(sessionID, "session.promptAsync")
  }

  async ask(sessionID: string, input: PromptInput): Promise<string> {
    return this.world.replied(this.mustLive(sessionID, "session.prompt"), input.text)
  }

  async compact(sessionID: string, _model: ModelRef): Promise<void> {
    await this.world.compacted(this.mustLive(sessionID, "session.summarize").id)
  }

  async createSession(title: string): Promise<Session> {
    const s = this.add(`ses_N${this.world.nextID()}`, undefined, title)
    await this.world.created(s)
    return this.info(s)
  }

  async selectSession(_sessionID: string): Promise<void> {}

  async deleteSession(sessionID: string): Promise<void> {
    this.mustLive(sessionID, "session.delete")
    await this.world.deleted(sessionID)
  }

  async setTitle(sessionID: string, title: string): Promise<void> {
    this.mustLive(sessionID, "session.update").title = title
  }

  async sessionInfo(sessionID: string): Promise<Session> {
    return this.info(this.mustLive(sessionID, "session.get"))
  }

  async sessionExists(sessionID: string): Promise<boolean | undefined> {
    return this.live(sessionID) !== undefined
  }

  /** The project's sessions; another directory's instance (a worktree's) holds none the loop reads here. */
  async listSessions(directory?: string): Promise<Session[]> {
    if (directory !== undefined) return []
    return this.order
      .filter((s) => !s.deleted)
      .map((s) => ({ ...this.info(s), time: { created: s.created } }) as Session)
  }

  async runCommand(directory: string, _sessionID: string, _command: string, _args: string): Promise<void> {
    this.world.commandRan(directory)
  }

  /** The worktrees' instances are simulated as running anyway: nothing to end. */
  async closeInstance(_directory: string): Promise<void> {}

  async defaultModels(): Promise<{ model?: string; small?: string }> {
    return {}
  }

  // The toasts and log lines the plugin's hooks send; the jobs' go through the world's handlers.
  toast(): void {}
  log(): void {}

  private info(s: SimSession): Session {
    return { id: s.id, title: s.title, ...(s.parentID ? { parentID: s.parentID } : {}) } as Session
  }
}
