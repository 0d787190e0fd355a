// What /ralph-status and /ralph-help show. Pure text from the loops' state.
import { evidenceLines, guardLines, guardSummary } from "../evidence/guard-summary.js"
import { clock } from "../loop/notices.js"
import { cooldownEndsAt } from "../loop/breaker.js"
import { current } from "../loop/call-window.js"
import { maxIterations, totalUsage, type Loop } from "../loop/loop.js"
import { unmetCriteria } from "../loop/criteria.js"
import { limitsText, taskRetries } from "../loop/limits.js"
import { currentStory } from "../plan/plan.js"
import { iterations, stopLabel } from "../loop/outcome.js"
import { promiseTag, shorten } from "../loop/prompts.js"
import type { SavedLoop } from "../store/saved-loops.js"
import type { Struggle } from "../status/struggle.js"
import { planStatusLines } from "../plan/status.js"
import { reviewOptions } from "../review/settings.js"
import { NO_REVIEWS } from "../loop/review-state.js"

const short = (id: string) => id.slice(0, 16)

/** `struggle`: the signal from the loop's iteration history (src/status/struggle.ts), when known. */
export function statusText(loop: Loop, now: number, struggle?: Struggle): string {
  const s = loop.settings
  const usage = totalUsage(loop)
  const calls = current(loop.calls, s, now)
  const b = loop.breaker
  const state =
    loop.phase === "waiting" && loop.wait ? `waiting (${loop.wait.reason}) until ${clock(loop.wait.until)}` : loop.phase
  return [
    `Ralph loop — ${state}${loop.detail && loop.phase !== "running" ? `: ${loop.detail}` : ""}`,
    `Task: ${loop.task.split("\n")[0]}`,
    `Iteration ${loop.iteration} of ${maxIterations(loop)} · ${restartsText(loop)} · strategy ${s.strategy} · ` +
      `ends on ${[promiseTag(s.promiseWord), ...s.completionMarkers].join(" or ")}` +
      `${s.exitGate === "promise" ? "" : ` (exit gate ${s.exitGate})`}`,
    `Limits: ${limitsText(s, loop.plan !== undefined)}`,
    `Circuit breaker: ` +
      `${b.state}${b.state === "OPEN" ? ` until ${clock(cooldownEndsAt(b, s))} (${b.reason})` : ""} · no progress ` +
      `${b.noProgress}/${s.noProgressThreshold} · same error ${b.sameError}/${s.sameErrorThreshold}`,
    `Calls: ${calls.count} of ${s.maxCallsPerHour} this window` +
      (calls.startedAt !== undefined ? ` (resets ${clock(calls.startedAt + s.rateLimitWindowMinutes * 60_000)})` : ""),
    `Budgets: tokens ${usage.tokens.toLocaleString("en")} of ${s.maxTokens.toLocaleString("en")} · cost ` +
      `${usage.cost.toFixed(2)} of ${s.maxCost.toFixed(2)} · time ${((now - loop.startedAt) / 60_000).toFixed(1)} ` +
      `of ${s.maxWallMinutes} min`,
    lastChecks(loop, s),
    struggle ? struggleLine(struggle) : "",
    reviewLine(loop),
    // Issue 39: what the guard found at the last claim, and what a completion rested on.
    ...guardLines(guardSummary(loop)),
    ...evidenceLines(loop.phase === "stopped" ? loop.evidence : undefined),
    ...planStatusLines(loop.plan),
    `Sessions: ${[...loop.lineage.map(short), `${short(loop.sessionID)} (current)`].join(" → ")}`,
    loop.hints.length ? `Queued hints: ${loop.hints.length}` : "",
  ]
    .filter(Boolean)
    .join("\n")
}

/** `restarts 2 of 5`, in a plan loop `restarts of story US-3: 1 of 5`. */
function restartsText(loop: Pick<Loop, "retries" | "plan" | "settings">): string {
  const used = Math.max(0, taskRetries(loop))
  const story = loop.plan ? currentStory(loop.plan) : undefined
  return `restarts${story ? ` of story ${story.id}:` : ""} ${used} of ${loop.settings.maxRetries}`
}

/** The reviews of a loop with review on, their cost apart (the budgets above include it). */
function reviewLine(loop: Loop): string {
  const options = reviewOptions(loop.settings)
  if (!options) return ""
  const r = loop.review ?? NO_REVIEWS
  const last = r.last ? ` · last verdict: ${r.last.verdict}` : ""
  return (
    `Review: ${r.reviews} review(s) · ${r.rejections} of ${options.maxRejections} rejections in a row · ` +
    `review tokens ${r.usage.tokens.toLocaleString("en")} · review cost ${r.usage.cost.toFixed(2)}${last}`
  )
}

/** How a loop ended: for /ralph-status in any session it lived in. `report`: its ralph_report.md, if written. */
export function endedText(
  { loop, savedAt }: SavedLoop,
  report: string | undefined,
  now: number,
  struggle?: Struggle,
): string {
  const usage = totalUsage(loop)
  return [
    `Ralph loop — ended ${stopLabel(loop.stopReason)}${loop.detail ? `: ${loop.detail}` : ""}`,
    `Task: ${loop.task.split("\n")[0]}`,
    `${iterations(loop.iteration)} of at most ${maxIterations(loop)} · restarts ${loop.retries} · strategy ` +
      `${loop.settings.strategy}`,
    `Time: ${((savedAt - loop.startedAt) / 60_000).toFixed(1)} min, ${when(loop.startedAt, now)} → ` +
      `${when(savedAt, now)} · tokens ${usage.tokens.toLocaleString("en")} · cost ${usage.cost.toFixed(2)}`,
    ...(struggle ? [struggleLine(struggle)] : []),
    reviewLine(loop),
    `Report: ${report ?? "not written"}`,
    `Sessions: ${[...loop.lineage.map(short), `${short(loop.sessionID)} (last)`].join(" → ")}`,
  ]
    .filter(Boolean)
    .join("\n")
}

const struggleLine = (s: Struggle): string => `Struggle: ${s.signal} — ${s.reason}`

/** One line per loop of the project, at most `max`: the live ones first, then the others on disk, newest first. */
export function loopLines(live: readonly Loop[], saved: readonly SavedLoop[], max: number, now: number): string[] {
  const liveIDs = new Set(live.map((l) => l.id))
  const lines = [
    ...live.map(
      (l) =>
        `● ${l.phase} · iteration ${l.iteration} of ${maxIterations(l)} · ${shorten(l.task, 50)} · session ` +
        `${short(l.sessionID)}`,
    ),
    ...saved
      .filter((s) => !liveIDs.has(s.loop.id))
      .map(({ loop: l, savedAt }) =>
        l.phase === "stopped"
          ? `${stopLabel(l.stopReason)} · ${iterations(l.iteration)} · ended ${when(savedAt, now)} · ` +
            `${shorten(l.task, 50)}`
          : `◌ ${l.phase}, not run by this OpenCode · iteration ${l.iteration} · ${shorten(l.task, 50)}`,
      ),
  ]
  return lines.slice(0, max).map((line) => `- ${line}`)
}

/** A time of day today, else the date too. */
function when(at: number, now: number): string {
  const day = (t: number) => new Date(t).toDateString()
  return day(at) === day(now)
    ? clock(at)
    : new Date(at).toLocaleString("en-GB", { hour12: false, dateStyle: "short", timeStyle: "short" })
}

function lastChecks(loop: Loop, settings: Loop["settings"]): string {
  if (settings.checks.length === 0) return "Checks: none configured or detected"
  const last = loop.snapshots.at(-1)
  if (!last)
    return (
      `Checks: ${settings.checks.map((c) => c.name).join(", ")} — not run yet (they run when the model ` +
      `claims completion)`
    )
  const unmet = unmetCriteria(last, settings)
  return (
    `Last checks (iteration ${last.iteration}): ` +
    `${last.checks.map((c) => `${c.name} ${c.status}`).join(", ")}` +
    `${unmet.length ? ` — ${unmet.join(", ")}` : " — criteria met"}`
  )
}
