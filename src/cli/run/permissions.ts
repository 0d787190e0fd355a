// Permissions never hang a headless loop: a permission OpenCode asks for in one of the run's
// sessions is answered at once — rejected (the model reads the denial and goes on), or with
// --auto-approve approved once (OpenCode asks only when no rule denies, as `opencode run --auto`
// approves). A question tool call is rejected: nobody is there to answer it.
import type { OpencodeClient, PermissionRequest } from "@opencode-ai/sdk/v2"
import type { RunEventBody } from "./events.js"

export type PermissionReply = "once" | "reject"

export const permissionReply = (autoApprove: boolean): PermissionReply => (autoApprove ? "once" : "reject")

/** What the model is told when its request is rejected. */
export const REJECTED_MESSAGE =
  "Rejected: this Ralph loop runs headless (ralph-loop run) and nobody can approve it. Do the task without it, " +
  "or say that it needs this permission."

export class PermissionDesk {
  private readonly answered = new Set<string>()

  constructor(
    private readonly client: OpencodeClient,
    private readonly autoApprove: boolean,
    /** Whether a session is one of the run's (its loop's sessions, their subagents'). */
    private readonly belongs: (sessionID: string) => Promise<boolean>,
    private readonly emit: (event: RunEventBody) => void,
  ) {}

  async asked(request: Pick<PermissionRequest, "id" | "sessionID" | "permission" | "patterns">): Promise<void> {
    if (this.answered.has(request.id) || !(await this.belongs(request.sessionID))) return
    this.answered.add(request.id)
    const reply = permissionReply(this.autoApprove)
    const { error } = await this.client.permission.reply({
      requestID: request.id,
      reply,
      ...(reply === "reject" ? { message: REJECTED_MESSAGE } : {}),
    })
    if (error) {
      this.emit({
        type: "error",
        message: `could not answer the permission request ${request.id}: ${JSON.stringify(error)}`,
      })
      return
    }
    this.emit({
      type: "permission",
      session: request.sessionID,
      permission: request.permission,
      patterns: request.patterns,
      reply,
    })
  }

  async question(request: { id: string; sessionID: string }): Promise<void> {
    if (this.answered.has(request.id) || !(await this.belongs(request.sessionID))) return
    this.answered.add(request.id)
    const { error } = await this.client.question.reject({ requestID: request.id })
    if (error)
      this.emit({ type: "error", message: `could not reject the question ${request.id}: ${JSON.stringify(error)}` })
    else this.emit({ type: "question", session: request.sessionID, reply: "reject" })
  }

  /** Requests asked before the runner listened (or while its event stream reconnected). */
  async pending(): Promise<void> {
    const [permissions, questions] = await Promise.all([this.client.permission.list(), this.client.question.list()])
    for (const request of permissions.data ?? []) await this.asked(request)
    for (const request of questions.data ?? []) await this.question(request)
  }
}
