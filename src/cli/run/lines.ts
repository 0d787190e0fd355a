// `ralph-loop run`'s text output: one line per event, for a person reading a CI log. Pure.
import { evidenceVerdict } from "../../evidence/guard-summary.js"
import type { RunEvent } from "./events.js"

const tokens = (n: number) => `${Math.round(n).toLocaleString("en-US")} tokens`
const cost = (n: number) => `$${n.toFixed(n >= 1 ? 2 : 4)}`
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

function checks(event: Extract<RunEvent, { type: "iteration" }>): string {
  const c = event.checks
  if (!c) return "checks not run"
  const found = [
    `${c.errors} errors`,
    `${c.warnings} warnings`,
    ...(c.testsRun > 0 ? [`${c.testsFailed}/${c.testsRun} tests failed`] : []),
    ...(c.securityIssues > 0 ? [`${c.securityIssues} security issues`] : []),
  ]
  return `checks: ${found.join(", ")}${event.failing.length ? ` (failing: ${event.failing.join(", ")})` : ""}`
}

export function runLine(event: RunEvent): string {
  switch (event.type) {
    case "host":
      return event.started
        ? `OpenCode started on ${event.url} (pid ${event.pid})`
        : `using the OpenCode server at ${event.url}`
    case "started":
      return (
        `loop ${event.loop} ${event.resumed ? "taken back" : "started"} at iteration ${event.iteration}: ` +
        `${event.task} — ${event.limits}`
      )
    case "iteration":
      return (
        `iteration ${event.iteration}: ${event.decision ?? "decided"} · ${checks(event)} · ` +
        `${tokens(event.tokens)} · ${cost(event.cost)} · ${seconds(event.durationMs)}`
      )
    case "story-done":
      return `story ${event.story} done (${event.done}/${event.total})${event.title ? `: ${event.title}` : ""}`
    case "waiting":
      return (
        `waiting (${event.reason})${event.until ? ` until ${event.until}` : ""}` +
        `${event.detail ? `: ${event.detail}` : ""}`
      )
    case "breaker-open":
      return `circuit breaker open${event.reason ? `: ${event.reason}` : ""}`
    case "review":
      return `review: ${event.verdict}${event.reasons.length ? ` — ${event.reasons.join("; ")}` : ""}`
    case "rollback":
      return `rollback${event.detail ? `: ${event.detail}` : ""}`
    case "paused":
      return `paused${event.detail ? `: ${event.detail}` : ""}`
    case "resumed":
      return `resumed at iteration ${event.iteration}`
    case "permission":
      return (
        `permission ${event.permission}${event.patterns.length ? ` (${event.patterns.join(", ")})` : ""} ` +
        `asked in ${event.session}: ` +
        `${event.reply === "once" ? "approved (--auto-approve)" : "rejected (--auto-approve would approve it)"}`
      )
    case "question":
      return `a question in ${event.session}: rejected (nobody is there to answer)`
    case "text":
      return `model: ${event.text}`
    case "interrupt":
      return (
        `${event.signal}: ${event.action === "pause" ? "pausing" : "cancelling"} the loop, then stopping ` +
        `(again to stop at once)`
      )
    case "error":
      return `error: ${event.message}`
    case "ended": {
      const spent =
        event.iteration > 0
          ? ` after ${event.iteration} iteration${event.iteration === 1 ? "" : "s"} · ${tokens(event.tokens)} · ` +
            `${cost(event.cost)}`
          : ""
      return (
        `ended: ` +
        `${event.outcome}${spent}${event.detail ? ` — ${event.detail}` : ""}` +
        `${event.evidence ? ` · ${evidenceVerdict(event.evidence)}` : ""}` +
        `${event.report ? ` · report ${event.report}` : ""} ` +
        `(exit ${event.exitCode})`
      )
    }
  }
}
