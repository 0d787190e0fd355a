// The soak's consistency checks, computed from what the model was sent (its request log) and from
// what the plugin and OpenCode hold at the end (the loops' state files, the sessions left, the
// files on disk). Pure functions: test/unit/soak-ledger.test.ts shows each check failing.
import type { Loop } from "../../src/loop/loop.js"
import type { RequestKind } from "../harness/mock-model.js"
import { TOKEN, type PromptInfo } from "./soak-model.js"

/** One request the model received, as much of it as the checks need. */
export interface RequestRecord {
  at: number
  kind: RequestKind
  lastRole: string
  /** HTTP status the model answered with. */
  status: number
  info: PromptInfo
  /** Every loop/chat token in the conversation the request carries. */
  tokens: string[]
  /** The conversation's fingerprint: OpenCode's retry of a failed request carries the same one. */
  key: string
  /** The session it was made for (OpenCode's x-session-id header). */
  session?: string
  /** Its connection was gone before the answer was fully written: OpenCode saw it fail. */
  cut?: boolean
}

export type FaultKind = "esc" | "cancel" | "429" | "kill"

export interface FaultRecord {
  kind: FaultKind
  /** The loop it was aimed at (esc, cancel). */
  token?: string
  at: number
  endedAt: number
}

export interface LoopOutcome {
  token: string
  /** The loop's state file at the end. */
  state: Loop
  /** The iteration from which its model may promise. */
  target: number
  /** The churn ended it with /cancel-ralph. */
  cancelled: boolean
}

export interface Ledger {
  /** Distinct prompts of loops (OpenCode's own retries of a failed request not counted). */
  prompts: number
  /** Prompts that resumed an iteration, each after a fault that explains it. */
  resumes: number
  lost: string[]
  double: string[]
  foreign: string[]
  /** Loops not in the final state they must be in. */
  unfinished: string[]
  chats: { messages: number; double: string[] }
}

/**
 * The requests that are new prompts. A request carrying the same conversation in the same session
 * as an earlier one is OpenCode sending that step again (its retry after an error it saw, whether
 * or not the model saw one): a prompt of the plugin adds a user message, so it never repeats a
 * session's conversation. Without a session id, only a request after a failed one is a retry.
 */
export function distinctPrompts(requests: readonly RequestRecord[]): RequestRecord[] {
  const sent = new Set<string>()
  const failed = new Set<string>()
  const prompts: RequestRecord[] = []
  for (const request of [...requests].sort((a, b) => a.at - b.at)) {
    if (request.kind !== "main" || request.lastRole !== "user") continue
    const key = `${request.session ?? ""} ${request.key}`
    if (!(request.session === undefined ? failed.has(key) : sent.has(key))) prompts.push(request)
    sent.add(key)
    if (request.status !== 200 || request.cut) failed.add(key)
    else failed.delete(key)
  }
  return prompts
}

/** How the prompts of one iteration differ: which sessions, whether they carried the same conversation, and how each went. */
function describeRepeats(prompts: readonly RequestRecord[]): string {
  const sessions = prompts.map((p) => p.session ?? "?")
  const same = new Set(prompts.map((p) => p.key)).size === 1
  const each = prompts.map((p) => `at ${p.at}: HTTP ${p.status}${p.cut ? ", cut off" : ""}`).join("; ")
  return `in ${new Set(sessions).size === 1 ? `session ${sessions[0]} each time` : `sessions ${sessions.join(", ")}`}; ${same ? "the same conversation each time" : "different conversations"}; ${each}`
}

export function ledger(
  requests: readonly RequestRecord[],
  loops: readonly LoopOutcome[],
  faults: readonly FaultRecord[],
): Ledger {
  const result: Ledger = {
    prompts: 0,
    resumes: 0,
    lost: [],
    double: [],
    foreign: [],
    unfinished: [],
    chats: { messages: 0, double: [] },
  }
  for (const request of requests) {
    if (request.kind !== "title" && request.tokens.length > 1)
      result.foreign.push(`${request.kind} request at ${request.at} carries ${request.tokens.join(" + ")}`)
  }
  const prompts = distinctPrompts(requests)
  for (const outcome of loops) checkLoop(outcome, prompts, requests, faults, result)
  const known = new Set(loops.map((l) => l.token))
  for (const prompt of prompts) {
    if (prompt.info.of === "loop" && !known.has(prompt.info.token))
      result.foreign.push(`a prompt for ${prompt.info.token}, which is no loop of the soak`)
  }
  const chatPrompts = new Map<string, number>()
  for (const prompt of prompts) {
    if (prompt.info.of !== "chat") continue
    const key = `${prompt.info.token} message ${prompt.info.message}`
    chatPrompts.set(key, (chatPrompts.get(key) ?? 0) + 1)
  }
  result.chats.messages = chatPrompts.size
  for (const [key, count] of chatPrompts) if (count > 1) result.chats.double.push(`${key} sent ${count} times`)
  return result
}

function checkLoop(
  outcome: LoopOutcome,
  prompts: readonly RequestRecord[],
  requests: readonly RequestRecord[],
  faults: readonly FaultRecord[],
  result: Ledger,
): void {
  const { token, state } = outcome
  const own = prompts.filter(
    (p): p is RequestRecord & { info: { of: "loop" } } => p.info.of === "loop" && p.info.token === token,
  )
  result.prompts += own.length
  const expectedEnd = outcome.cancelled ? "cancelled" : "completed"
  if (state.phase !== "stopped" || state.stopReason !== expectedEnd || state.retiring.length > 0)
    result.unfinished.push(
      `${token}: ${state.phase}${state.stopReason ? ` (${state.stopReason})` : ""}, ${state.retiring.length} session(s) still to retire; expected stopped (${expectedEnd})`,
    )
  if (!outcome.cancelled && state.iteration < outcome.target)
    result.unfinished.push(`${token}: completed at iteration ${state.iteration}, before its target ${outcome.target}`)

  const fresh = new Map<number, RequestRecord[]>()
  let previous: (typeof own)[number] | undefined
  for (const prompt of own) {
    const { iteration, kind } = prompt.info
    if (previous && iteration < previous.info.iteration)
      result.double.push(`${token}: iteration ${iteration} prompted after iteration ${previous.info.iteration}`)
    if (kind === "resume") {
      const since = previous?.at ?? 0
      if (!explained(token, since, prompt.at, requests, faults))
        result.double.push(
          `${token}: iteration ${iteration} resumed at ${prompt.at} with no fault since its last prompt`,
        )
      else result.resumes += 1
    } else fresh.set(iteration, [...(fresh.get(iteration) ?? []), prompt])
    previous = prompt
  }
  for (const [iteration, repeats] of fresh)
    if (repeats.length > 1)
      result.double.push(
        `${token}: iteration ${iteration} prompted ${repeats.length} times (${describeRepeats(repeats)})`,
      )
  const seen = new Set(own.map((p) => p.info.iteration))
  const missing = Array.from({ length: state.iteration }, (_, i) => i + 1).filter((i) => !seen.has(i))
  if (missing.length > 0)
    result.lost.push(`${token}: iteration(s) ${missing.join(", ")} of ${state.iteration} never prompted`)
  const beyond = [...seen].filter((i) => i > state.iteration)
  if (beyond.length > 0)
    result.lost.push(`${token}: prompted iteration(s) ${beyond.join(", ")}, but its state stops at ${state.iteration}`)
  if (own.filter((p) => p.info.kind === "first").length !== 1)
    result.double.push(`${token}: ${own.filter((p) => p.info.kind === "first").length} first prompts`)
}

/** A resume needs a cause since the loop's previous prompt: a kill, an Esc in this loop, a 429 answered to it. */
function explained(
  token: string,
  since: number,
  at: number,
  requests: readonly RequestRecord[],
  faults: readonly FaultRecord[],
): boolean {
  const during = (t: number) => t >= since && t <= at
  if (
    faults.some(
      (f) => (f.kind === "kill" || (f.kind === "esc" && f.token === token)) && (during(f.at) || during(f.endedAt)),
    )
  )
    return true
  return requests.some((r) => r.status === 429 && during(r.at) && r.tokens.includes(token))
}

/** One session OpenCode still lists at the end, with the texts of its user messages. */
export interface SessionRecord {
  id: string
  title?: string
  userTexts: string[]
}

/**
 * What OpenCode holds at the end: every session belongs to a loop (its current session, or an
 * earlier one the strategy keeps) or to a chat; no session has a message of another loop or chat;
 * every session that is gone left its summary and transcript.
 */
export function sessionCheck(input: {
  listed: readonly SessionRecord[]
  /** Session id → the token of the loop or chat it belongs to, for every session that may remain. */
  owners: ReadonlyMap<string, string>
  /** Sessions that must be gone (earlier sessions of recreate loops). */
  retired: readonly string[]
  /** Every session that had a message during the run, and every session in a loop's state. */
  known: readonly string[]
  /** Whether <summaryPath>/<id>/<file> exists. */
  hasFile: (sessionID: string, file: "ralph_summary.md" | "transcript.json") => boolean
}): { orphans: string[]; foreign: string[]; missingFiles: string[]; deleted: number } {
  const listed = new Set(input.listed.map((s) => s.id))
  const orphans = input.listed
    .filter((s) => !input.owners.has(s.id))
    .map((s) => `${s.id}${s.title ? ` "${s.title}"` : ""} (${s.userTexts[0]?.slice(0, 60) ?? "no message"})`)
  for (const id of input.retired)
    if (listed.has(id)) orphans.push(`${id} (an earlier session of a recreate loop, never deleted)`)
  const foreign: string[] = []
  for (const session of input.listed) {
    const owner = input.owners.get(session.id)
    if (!owner) continue
    const others = [...new Set(session.userTexts.flatMap((t) => t.match(TOKEN) ?? []))].filter((t) => t !== owner)
    if (others.length > 0) foreign.push(`${session.id} of ${owner} has messages of ${others.join(", ")}`)
  }
  const gone = [...new Set(input.known)].filter((id) => !listed.has(id))
  const missingFiles = gone.flatMap((id) =>
    (["ralph_summary.md", "transcript.json"] as const)
      .filter((file) => !input.hasFile(id, file))
      .map((file) => `${id}/${file}`),
  )
  return { orphans, foreign, missingFiles, deleted: gone.length }
}
