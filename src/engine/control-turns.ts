// The model turn OpenCode runs for a control command (/ralph-status …) after the plugin has acted.
// OpenCode 1.18.33 always runs one (docs/opencode-notes.md); all it has to do is show the plugin's
// answer, so the hooks send it as cheaply as OpenCode lets them: the control message alone (none of
// the session's history), a one-line system prompt, no tools, few output tokens. This records which
// turn that is, narrowly: a request counts only if its last user message is the control message the
// plugin just wrote, and only until that turn has ended. Every other turn is left as it is.
interface Mark {
  /** The control message OpenCode created for the command (unknown until chat.message). */
  messageID?: string
  /** The control turn was seen busy: its idle ends the mark (an earlier turn's late idle does not). */
  busy: boolean
  /** The request being prepared now answers the control message (set by the messages transform). */
  requesting: boolean
}

/** For bench/control-cost.ts only: control turns sent whole, as before, to measure the difference. */
const SEND_WHOLE = process.env.RALPH_LOOP_FULL_CONTROL_TURNS === "1"

export class ControlTurns {
  private readonly marks = new Map<string, Mark>()

  /** The plugin rewrote a control command in `sessionID`: the next user message there is its control message. */
  commandRewritten(sessionID: string): void {
    if (!SEND_WHOLE) this.marks.set(sessionID, { busy: false, requesting: false })
  }

  /** A user message was created in `sessionID`: the control message expected, or the mark is dropped. */
  messageCreated(sessionID: string, messageID: string, isControl: boolean): void {
    const mark = this.marks.get(sessionID)
    if (!mark || mark.messageID !== undefined) return
    if (isControl) mark.messageID = messageID
    else this.marks.delete(sessionID)
  }

  isControlMessage(sessionID: string, messageID: string): boolean {
    return this.marks.get(sessionID)?.messageID === messageID
  }

  /** The messages transform decided whether the request being prepared in `sessionID` is the control turn's. */
  preparing(sessionID: string, control: boolean): void {
    const mark = this.marks.get(sessionID)
    if (mark) mark.requesting = control
  }

  /** The request being prepared in `sessionID` answers its control message. */
  isControlRequest(sessionID: string): boolean {
    return this.marks.get(sessionID)?.requesting === true
  }

  busy(sessionID: string): void {
    const mark = this.marks.get(sessionID)
    if (mark?.messageID !== undefined) mark.busy = true
  }

  idle(sessionID: string): void {
    if (this.marks.get(sessionID)?.busy) this.marks.delete(sessionID)
  }

  /** The session is compacted (its whole history must reach the summary) or deleted: no control turn there. */
  forget(sessionID: string): void {
    this.marks.delete(sessionID)
  }
}
