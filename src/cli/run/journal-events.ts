// The run's events from the followed loop's journal lines: each line the plugin journals for it
// (started, decided, waiting:…, review, rolled-back, paused, resumed, stopped:…) becomes what a
// person watching wants to see. The state file read beside it adds what a line does not carry
// (why it waits or paused, the review's verdict). Pure.
import { limitsText } from "../../loop/limits.js"
import type { JournalEntry } from "../../store/loop-schema.js"
import type { Loop, PauseCause, StopReason } from "../../loop/loop.js"
import type { RunEventBody } from "./events.js"

/** What the state file says of the loop now (any field may be missing: the file is read after the line). */
export interface StateNow {
  phase?: string
  detail?: string
  pauseCause?: PauseCause
  wait?: { reason: string; until: number }
  breakerReason?: string
  review?: { reviews: number; last?: { verdict: "approve" | "reject" | "none"; reasons: string[] } }
}

/** What the translation remembers between lines of one loop. */
export interface FollowMemory {
  tokens: number
  cost: number
  storiesDone: number
  breakerOpen: boolean
  reviews: number
  /** Lines already turned into events (a journal's rotation repeats the open loops' last lines). */
  seen: ReadonlySet<string>
}

export const freshMemory = (): FollowMemory => ({
  tokens: 0,
  cost: 0,
  storiesDone: 0,
  breakerOpen: false,
  reviews: 0,
  seen: new Set(),
})

/**
 * What a run that resumes a loop knows before its first line: the loop's stories done, breaker and
 * reviews as saved, and its use by its last decided iteration — or its first lines would report all
 * of them again as new.
 */
export function resumedMemory(
  loop: Pick<Loop, "plan" | "breaker" | "review">,
  used: { tokens: number; cost: number },
): FollowMemory {
  return {
    ...freshMemory(),
    ...used,
    storiesDone: loop.plan?.done.length ?? 0,
    breakerOpen: loop.breaker.state === "OPEN",
    reviews: loop.review?.reviews ?? 0,
  }
}

export interface Translated {
  events: RunEventBody[]
  memory: FollowMemory
  /** The loop ended (stopped, or paused for a person): the run is over. */
  end?: { kind: "stopped"; reason: StopReason } | { kind: "paused" }
  /** Paused by OpenCode's recovery at its start (resumeOnStart "ask"): the runner resumes it. */
  resume?: true
}

/**
 * What a `paused` line means to the run. Lines from before the runner's own request (the boot's
 * recovery, a pause a --resume is about to lift) are only shown. After it: a rollback is part of
 * the run (the loop waits, paused, for whoever rolled back to resume it); a recovery at a start is
 * lifted by the runner; any other pause — a person's, the loop's own, the runner's interrupt — ends
 * the run (an older plugin's line, without a cause, too).
 */
function pauseMeaning(
  cause: PauseCause | undefined,
  afterRequest: boolean,
): "shown" | "part-of-run" | "resume" | "end" {
  if (!afterRequest) return "shown"
  if (cause === "rollback") return "part-of-run"
  if (cause === "recovery") return "resume"
  return "end"
}

const lineKey = (entry: JournalEntry): string => `${entry.at}#${entry.event}#${entry.loop.iteration}`

/** `afterRequest`: the line came after the runner's own request (its /ralph, its resume). */
export function translate(
  entry: JournalEntry,
  state: StateNow | undefined,
  memory: FollowMemory,
  resumed: boolean,
  afterRequest = true,
): Translated {
  const key = lineKey(entry)
  if (memory.seen.has(key)) return { events: [], memory }
  const next: FollowMemory = { ...memory, seen: new Set([...memory.seen, key]) }
  const loop = entry.loop
  const events: RunEventBody[] = []
  const [event, detailOfEvent] = splitEvent(entry.event)
  switch (event) {
    case "started":
    case "recovered":
      events.push({
        type: "started",
        task: loop.task.split("\n")[0] ?? "",
        limits: limitsText(loop.settings, entry.plan !== undefined),
        session: loop.sessionID,
        resumed: resumed || event === "recovered",
        iteration: loop.iteration,
      })
      if (entry.plan) next.storiesDone = entry.plan.done.length
      break
    case "decided":
      decidedEvents(entry, state, memory, next, events)
      break
    case "waiting": {
      const wait = state?.phase === "waiting" ? state.wait : undefined
      events.push({
        type: "waiting",
        reason: detailOfEvent ?? wait?.reason ?? "unknown",
        until: wait ? new Date(wait.until).toISOString() : null,
        detail: state?.phase === "waiting" ? (state.detail ?? null) : null,
      })
      break
    }
    case "review": {
      const review = state?.review
      if (review && review.reviews > memory.reviews && review.last) {
        events.push({ type: "review", verdict: review.last.verdict, reasons: review.last.reasons })
        next.reviews = review.reviews
      }
      break
    }
    case "rolled-back":
      events.push({ type: "rollback", detail: loop.detail ?? state?.detail ?? null })
      break
    case "paused": {
      // The line's own detail (an older plugin's line has none: the state's, if still paused).
      events.push({
        type: "paused",
        detail: loop.detail ?? (state?.phase === "paused" ? (state.detail ?? null) : null),
      })
      const meaning = pauseMeaning(loop.pauseCause ?? state?.pauseCause, afterRequest)
      if (meaning === "end") return { events, memory: next, end: { kind: "paused" } }
      if (meaning === "resume") return { events, memory: next, resume: true }
      break
    }
    case "resumed":
      events.push({ type: "resumed", iteration: loop.iteration })
      break
    case "stopped":
      return { events, memory: next, end: { kind: "stopped", reason: loop.stopReason ?? "cancelled" } }
  }
  return { events, memory: next }
}

/** An iteration decided: its row, the stories it got done, and a breaker that opened; `next` takes the new totals. */
function decidedEvents(
  entry: JournalEntry,
  state: StateNow | undefined,
  memory: FollowMemory,
  next: FollowMemory,
  events: RunEventBody[],
): void {
  const loop = entry.loop
  const record = entry.record
  if (!record) return
  events.push({
    type: "iteration",
    iteration: loop.iteration,
    decision: record.decision ?? null,
    checks: record.checks ?? null,
    failing: record.failing ?? [],
    tokens: Math.max(0, record.tokens - memory.tokens),
    cost: Math.max(0, record.cost - memory.cost),
    durationMs: record.durationMs,
    totalTokens: record.tokens,
    totalCost: record.cost,
  })
  next.tokens = Math.max(memory.tokens, record.tokens)
  next.cost = Math.max(memory.cost, record.cost)
  const plan = entry.plan
  if (plan && plan.done.length > memory.storiesDone) {
    for (const done of plan.done.slice(memory.storiesDone)) {
      const story = plan.stories.find((s) => s.id === done.id)
      events.push({
        type: "story-done",
        story: done.id,
        title: story?.title ?? null,
        done: plan.done.indexOf(done) + 1,
        total: plan.stories.length,
      })
    }
    next.storiesDone = plan.done.length
  }
  const open = record.breaker?.state === "OPEN"
  if (open && !memory.breakerOpen) events.push({ type: "breaker-open", reason: state?.breakerReason ?? null })
  if (record.breaker) next.breakerOpen = open
}

/** "waiting:breaker" → ["waiting", "breaker"]; "decided" → ["decided", undefined]. */
function splitEvent(event: string): [string, string | undefined] {
  const colon = event.indexOf(":")
  return colon < 0 ? [event, undefined] : [event.slice(0, colon), event.slice(colon + 1)]
}
