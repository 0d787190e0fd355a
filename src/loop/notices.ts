// What the user is told, as toasts. Titles start with "Ralph" (the contract).
import type { BreakerState } from "./breaker.js"
import { maxIterations, type Loop, type StopReason, type Wait } from "./loop.js"
import { promiseTag, shorten } from "./prompts.js"
import type { Host } from "../host/port.js"
import { currentStory, doneIn, storyPosition } from "../plan/plan.js"

import type { Notice } from "../host/notice.js"
export type { Notice }

export const show = (api: Pick<Host, "toast">, notice: Notice): void =>
  api.toast(notice.variant, notice.title, notice.message, notice.duration)

/** A time of day, as toasts and /ralph-status show it. */
export const clock = (at: number) => new Date(at).toLocaleTimeString("en-GB", { hour12: false })

/** `Ralph 3/20 · build the widget`, or in a plan loop `Ralph 3/20 · story US-002 (2 of 5) · its title`. */
export function iterationTitle(loop: Loop): string {
  const story = loop.plan ? currentStory(loop.plan) : undefined
  const head = `Ralph ${loop.iteration}/${maxIterations(loop)}`
  if (!loop.plan || !story) return `${head} · ${shorten(loop.task, 50)}`
  const { number, total } = storyPosition(loop.plan)
  return `${head} · story ${story.id} (${number} of ${total}) · ${shorten(story.title, 40)}`
}

export function started(loop: Loop): Notice {
  const checks = loop.settings.checks.length
    ? ` and these checks pass: ${loop.settings.checks.map((c) => c.name).join(", ")}`
    : ""
  const plan = loop.plan
  return {
    variant: "info",
    title: iterationTitle(loop),
    message: plan
      ? `Plan loop started (${loop.settings.strategy}): ${plan.stories.length} stories in ${plan.file}, ` +
        `${plan.done.length} done already. One story per iteration; the plugin marks a story done when the model ` +
        `writes ${promiseTag(loop.settings.promiseWord)}` +
        `${checks || " (no loop checks; a story's own checks still run)"}.`
      : `Loop started (${loop.settings.strategy}). It ends when the model writes ` +
        `${promiseTag(loop.settings.promiseWord)}${checks}.`,
  }
}

export function iterationStarted(loop: Loop, how: string): Notice {
  const done = loop.plan ? doneIn(loop.plan, loop.iteration - 1) : undefined
  return {
    variant: "info",
    title: iterationTitle(loop),
    message: done
      ? `Story ${done.id} done (${done.checks.length ? "its checks pass" : "no checks to run"}). ${how}`
      : how,
  }
}

export function completed(loop: Loop, detail: string): Notice {
  return {
    variant: "success",
    title: "Ralph · done",
    message:
      `${shorten(loop.task, 60)} — finished in ${loop.iteration} ` +
      `iteration${loop.iteration === 1 ? "" : "s"} (${detail}).`,
  }
}

const STOP_TITLES: Record<StopReason, string> = {
  completed: "Ralph · done",
  "retries-exhausted": "Ralph · retry limit reached",
  "max-iterations": "Ralph · iteration limit reached",
  "token-budget": "Ralph · token budget used up",
  "cost-budget": "Ralph · cost budget used up",
  "time-budget": "Ralph · time budget used up",
  "auth-error": "Ralph · stopped: authentication failed",
  stagnation: "Ralph · stopped: no progress on the checks",
  review: "Ralph · stopped: the reviewer kept rejecting",
  cancelled: "Ralph · cancelled",
  "session-deleted": "Ralph · stopped",
  replaced: "Ralph · replaced",
}

export function stopped(loop: Loop, reason: StopReason, detail: string): Notice {
  // A plan's story may have been claimed and not verified: its detail says what is missing.
  const promise =
    reason === "retries-exhausted" && !loop.plan ? ` without ${promiseTag(loop.settings.promiseWord)}` : ""
  return {
    variant: reason === "auth-error" ? "error" : "warning",
    title: STOP_TITLES[reason],
    message: `Stopped: ${detail}${promise}. The work so far is in the session.`,
    duration: 15_000,
  }
}

export function paused(reason: string): Notice {
  return {
    variant: "warning",
    title: "Ralph · paused",
    message: `Paused: ${reason}. Send a message in this session to resume the loop, or /cancel-ralph to end it.`,
    duration: 15_000,
  }
}

const OR_CANCEL = ", or /cancel-ralph."

const WAIT_TITLES: Record<Wait["reason"], string> = {
  backoff: "Ralph · backing off",
  breaker: "Ralph · circuit breaker OPEN",
  "call-limit": "Ralph · call limit reached",
  "usage-limit": "Ralph · usage limit — waiting for the reset",
}

export function waiting(wait: Wait, detail: string): Notice {
  const what = wait.then === "resume" ? "the same iteration resumes" : "the loop goes on"
  const early =
    wait.reason === "usage-limit"
      ? "/ralph-resume or a message goes on now (no retry is counted)"
      : "Send a message to go on now"
  return {
    variant: "warning",
    title: WAIT_TITLES[wait.reason],
    message: `${detail}. Nothing is sent until ${clock(wait.until)}; then ${what} by itself. ${early}${OR_CANCEL}`,
    duration: 15_000,
  }
}

export function breakerChanged(from: BreakerState, to: BreakerState, reason?: string): Notice | undefined {
  if (from === to || to === "OPEN") return undefined // OPEN is announced with its wait
  if (to === "HALF_OPEN")
    return {
      variant: "info",
      title: "Ralph · circuit breaker HALF_OPEN",
      message: "Cooldown over: one probe turn is sent to see whether the loop makes progress.",
    }
  return {
    variant: "success",
    title: "Ralph · circuit breaker CLOSED",
    message: `Progress again${reason ? ` after: ${reason}` : ""}; the loop goes on normally.`,
  }
}

export function missingPromise(loop: Loop): Notice {
  return {
    variant: "warning",
    title: "Ralph · no promise yet",
    message:
      `The model stopped without ${promiseTag(loop.settings.promiseWord)}. autoRestart is off, so nothing ` +
      `was sent; reply to go on.`,
  }
}

export function failed(what: string, error: unknown): Notice {
  const reason = error instanceof Error ? error.message : String(error)
  return {
    variant: "error",
    title: "Ralph · paused after an error",
    message: `${what}: ${reason}. Send a message to resume, or /cancel-ralph.`,
    duration: 20_000,
  }
}
