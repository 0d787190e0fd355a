// `ralph-loop status` as text: one line per loop, then the chosen loop in detail with its
// iteration history as a table. Pure, from the status document (so text and JSON never disagree).
import type { IterationJSON, LoopSummary, StatusDocument } from "./document.js"
import { evidenceLines, guardLines } from "../evidence/guard-summary.js"

const MARK: Record<LoopSummary["state"], string> = {
  running: "●",
  deciding: "●",
  restarting: "●",
  waiting: "◷",
  paused: "‖",
  stopped: "■",
}

export const seconds = (ms: number | null): string =>
  ms === null ? "–" : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 60_000).toFixed(1)} min`
/** 12,345 — by hand: Intl's toLocaleString took 100 ms for a thousand loops' lines in a cold process. */
export const thousands = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
const tokens = thousands
const short = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

function state(l: LoopSummary): string {
  if (l.state === "stopped") return `ended ${l.stopReason ?? "stopped"}`
  if (l.wait) return `waiting (${l.wait.reason})`
  return l.state
}

function checks(c: LoopSummary["lastChecks"]): string {
  return c
    ? `${c.errors} err ${c.warnings} warn${c.testsRun ? ` ${c.testsFailed}/${c.testsRun} tests failed` : ""}`
    : "no checks"
}

/** One line for a loop. */
export function loopLine(l: LoopSummary): string {
  return [
    `${MARK[l.state]} ${l.id}`,
    ...(l.worktree ? [`worktree ${l.worktree}`] : []),
    state(l),
    `iteration ${l.iteration}/${l.maxIterations}`,
    l.strategy,
    ...(l.plan ? [`story ${l.plan.current?.id ?? "(all done)"} ${l.plan.done}/${l.plan.total}`] : []),
    `breaker ${l.breaker.state}`,
    `${tokens(l.tokens)} tokens $${l.cost.toFixed(2)}`,
    `${seconds(l.iterationMs)}/iteration`,
    checks(l.lastChecks),
    `${l.struggle.signal}`,
    short(l.task, 40),
  ].join(" · ")
}

/** The chosen loop in detail. */
export function loopDetail(l: NonNullable<StatusDocument["selected"]>): string[] {
  return [
    `Loop ${l.id}${l.worktree ? ` (worktree ${l.worktree})` : ""} — ${state(l)}${l.detail ? `: ${l.detail}` : ""}`,
    `Task: ${l.task}`,
    `Iteration ${l.iteration} of ${l.maxIterations} · ` +
      `restarts${l.retries.story ? ` of story ${l.retries.story}:` : ""} ${l.retries.used} of ${l.retries.max} · ` +
      `strategy ${l.strategy}${
        l.plan
          ? ` · ` +
            `${l.plan.current ? `story ${l.plan.current.id} ${l.plan.current.title}` : "every story done"} ` +
            `(${l.plan.done} of ${l.plan.total} in ${l.plan.file})`
          : ""
      }`,
    `Limits: ${l.limits}`,
    `Circuit breaker: ${l.breaker.state} · no progress ${l.breaker.noProgress} · same ` +
      `error ${l.breaker.sameError}${l.breaker.reason ? ` (last opened: ${l.breaker.reason})` : ""}`,
    ...(l.wait ? [`Waiting (${l.wait.reason}) until ${l.wait.until}`] : []),
    `Tokens ${tokens(l.tokens)} · cost $${l.cost.toFixed(4)} · ${seconds(l.iterationMs)} per iteration · ` +
      `started ${l.startedAt}`,
    `Last checks: ${
      l.lastChecks
        ? `iteration ${l.lastChecks.iteration}: ${checks(l.lastChecks)}, ` + `${l.lastChecks.securityIssues} security`
        : "none ran"
    }`,
    `Struggle: ${l.struggle.signal} — ${l.struggle.reason}`,
    ...guardLines(l.guard),
    ...evidenceLines(l.evidence),
    `Sessions: ${l.sessions.join(" → ")}`,
  ]
}

const COLUMNS: Array<[string, (r: IterationJSON) => string]> = [
  ["iteration", (r) => String(r.iteration)],
  ["decided", (r) => r.decidedAt.slice(11, 19)],
  ["decision", (r) => r.decision ?? ""],
  ["tokens", (r) => tokens(r.tokens)],
  ["cost", (r) => r.cost.toFixed(4)],
  ["time", (r) => seconds(r.durationMs)],
  ["errors", (r) => (r.checks ? String(r.checks.errors) : "–")],
  ["warnings", (r) => (r.checks ? String(r.checks.warnings) : "–")],
  ["tests failed", (r) => (r.checks?.testsRun ? `${r.checks.testsFailed}/${r.checks.testsRun}` : "–")],
  ["progress", (r) => (r.progress === null ? "?" : r.progress ? "yes" : "no")],
  ["stories", (r) => (r.storiesDone === null ? "" : String(r.storiesDone))],
  ["failing", (r) => r.failing.join(", ") + (r.rejected ? " (claim rejected)" : "")],
]

/** The iteration history's cells: the header, then one row per decided turn. */
export const historyCells = (rows: readonly IterationJSON[]): string[][] => [
  COLUMNS.map(([name]) => name),
  ...rows.map((r) => COLUMNS.map(([, cell]) => cell(r))),
]

/** The iteration history as an aligned text table. */
export function historyTable(rows: readonly IterationJSON[]): string[] {
  if (rows.length === 0) return ["(no iteration decided yet)"]
  const cells = historyCells(rows)
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => (row[i] as string).length)))
  return cells.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd(),
  )
}

/** The whole text of `ralph-loop status`. */
export function statusLines(doc: StatusDocument): string[] {
  if (doc.loops.length === 0) return [`No Ralph loop in ${doc.project} yet.`]
  return [
    `Loops in ${doc.project} (${doc.loops.length}, newest first):`,
    ...doc.loops.map(loopLine),
    ...(doc.selected ? ["", ...loopDetail(doc.selected), "", ...historyTable(doc.selected.history)] : []),
  ]
}
