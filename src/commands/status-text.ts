// What /ralph-status and /ralph-help show. Pure text from the loops' state.
import { clock } from "../actions/notices.js"
import { cooldownEndsAt } from "../loop/breaker.js"
import { current } from "../loop/call-window.js"
import { maxIterations, totalUsage, type Loop } from "../loop/loop.js"
import { unmetCriteria } from "../loop/criteria.js"
import { promiseTag } from "../loop/prompts.js"
import { DEFAULT_SETTINGS } from "../config/schema.js"
import { SETTINGS_FILES } from "../config/load.js"
import { OPENCODE_DIR, STATE_DIR } from "../project/own-files.js"
import { RALPH_FLAGS } from "./ralph-args.js"
import { planStatusLines } from "../plan/status.js"

const short = (id: string) => id.slice(0, 16)

export function statusText(loop: Loop, now: number): string {
  const s = loop.settings
  const usage = totalUsage(loop)
  const calls = current(loop.calls, s, now)
  const b = loop.breaker
  const state = loop.phase === "waiting" && loop.wait ? `waiting (${loop.wait.reason}) until ${clock(loop.wait.until)}` : loop.phase
  return [
    `Ralph loop — ${state}${loop.detail && loop.phase !== "running" ? `: ${loop.detail}` : ""}`,
    `Task: ${loop.task.split("\n")[0]}`,
    `Iteration ${loop.iteration} of ${maxIterations(loop)} · restarts ${loop.retries} of ${s.maxRetries} · strategy ${s.strategy} · ends on ${promiseTag(s.promiseWord)}${s.exitGate === "promise" ? "" : ` (exit gate ${s.exitGate})`}`,
    `Circuit breaker: ${b.state}${b.state === "OPEN" ? ` until ${clock(cooldownEndsAt(b, s))} (${b.reason})` : ""} · no progress ${b.noProgress}/${s.noProgressThreshold} · same error ${b.sameError}/${s.sameErrorThreshold}`,
    `Calls: ${calls.count} of ${s.maxCallsPerHour} this window${calls.startedAt !== undefined ? ` (resets ${clock(calls.startedAt + s.rateLimitWindowMinutes * 60_000)})` : ""}`,
    `Budgets: tokens ${usage.tokens.toLocaleString("en")} of ${s.maxTokens.toLocaleString("en")} · cost ${usage.cost.toFixed(2)} of ${s.maxCost.toFixed(2)} · time ${((now - loop.startedAt) / 60_000).toFixed(1)} of ${s.maxWallMinutes} min`,
    lastChecks(loop, s),
    ...planStatusLines(loop.plan),
    `Sessions: ${[...loop.lineage.map(short), `${short(loop.sessionID)} (current)`].join(" → ")}`,
    loop.hints.length ? `Queued hints: ${loop.hints.length}` : "",
  ]
    .filter(Boolean)
    .join("\n")
}

function lastChecks(loop: Loop, settings: Loop["settings"]): string {
  if (settings.checks.length === 0) return "Checks: none configured or detected"
  const last = loop.snapshots.at(-1)
  if (!last) return `Checks: ${settings.checks.map((c) => c.name).join(", ")} — not run yet (they run when the model claims completion)`
  const unmet = unmetCriteria(last, settings)
  return `Last checks (iteration ${last.iteration}): ${last.checks.map((c) => `${c.name} ${c.status}`).join(", ")}${unmet.length ? ` — ${unmet.join(", ")}` : " — criteria met"}`
}

export function helpText(): string {
  return [
    "Ralph loop — give a task once; the agent keeps going until it writes the promise.",
    "",
    "/ralph <task> [flags]   start a loop in this session (put the task after -- if it contains --words)",
    "/ralph-status           show the loop: iteration, breaker, limits, budgets, sessions",
    "/ralph-pause            pause it (nothing is sent)      /ralph-resume   go on now",
    "/ralph-hint <text>      add a hint to the next prompt, once",
    "/cancel-ralph           end it now",
    "/ralph-plan <task>      ask the model to write a plan of user stories to .opencode/prd.json (setting prdPath)",
    "/ralph --prd [PATH] [task]   work through a plan, one story per iteration; the plugin marks a story done when its checks pass",
    "",
    `Flags: ${Object.keys(RALPH_FLAGS).join(", ")} (as --flag value or --flag=value)`,
    `Settings: ${OPENCODE_DIR}/${SETTINGS_FILES[0]} (project), ~/.config/opencode/${SETTINGS_FILES[0]} (global), or plugin options.`,
    `Files: ${DEFAULT_SETTINGS.summaryPath}<session>/ralph_summary.md (handoffs), ${STATE_DIR}/ (loop state).`,
  ].join("\n")
}
