// What the TUI half shows, as text: the /ralph-status dialog, the sidebar panel and the full-screen
// view's chart. Pure, from the status document `ralph-loop status --json` prints (src/status/), so
// the TUI, the CLI and the report never disagree.
import type { IterationJSON, LoopSummary, StatusDocument } from "../status/document.js"
import { historyTable, loopDetail, loopLine, seconds, thousands } from "../status/lines.js"
import type { StatusSaved } from "../status/status-loop.js"
import { evidenceVerdict } from "../evidence/guard-summary.js"
import type { Evidence } from "../evidence/record.js"
import { replayLine } from "../evidence/replay-record.js"

/** The loop that lives (or lived) in `sessionID`: a loop not ended first, then the newest. */
export function sessionLoop(loops: readonly StatusSaved[], sessionID: string | undefined): StatusSaved | undefined {
  if (!sessionID) return undefined
  const of = loops.filter(({ loop }) => loop.sessionID === sessionID || loop.lineage.includes(sessionID))
  return of.find(({ loop }) => loop.phase !== "stopped") ?? of[0]
}

const worktreeLoops = (doc: StatusDocument) => doc.loops.filter((l) => l.worktree !== null)

/**
 * The /ralph-status dialog when the server plugin does not answer: the session's loop in detail (doc.selected when
 * `own`), the project's worktree loops.
 */
export function statusDialogText(doc: StatusDocument, own: boolean): string {
  const worktrees = worktreeLoops(doc)
  const tail = worktrees.length ? ["", "Worktree loops:", ...worktrees.map(loopLine)] : []
  if (own && doc.selected) return [...loopDetail(doc.selected), ...tail].join("\n")
  if (doc.loops.length === 0) return "No Ralph loop in this project yet. /ralph <task> starts one."
  const others = doc.loops.filter((l) => l.worktree === null).slice(0, 10)
  return [
    "No Ralph loop in this session.",
    ...(others.length ? ["", "Loops in this project (newest first):", ...others.map(loopLine)] : []),
    ...tail,
  ].join("\n")
}

/** The dialog's text from the files when the server plugin's own /ralph-status could not be had: `why` says so. */
export function fromFilesText(text: string, why: string | undefined): string {
  return why === undefined ? text : `${text}\n\n(The shorter status, read from the loops' files: ${why}.)`
}

/** `4m 05s`, `12s`: time left until `until`. */
export function countdown(until: string, now: number): string {
  const left = Math.max(0, Math.round((Date.parse(until) - now) / 1000))
  return left >= 60 ? `${Math.floor(left / 60)}m ${String(left % 60).padStart(2, "0")}s` : `${left}s`
}

function stateText(l: LoopSummary, now: number): string {
  if (l.state === "stopped") return `ended: ${l.stopReason ?? "stopped"}`
  if (l.wait) return `waiting (${l.wait.reason}) ${countdown(l.wait.until, now)} left`
  return l.state
}

function checksText(c: LoopSummary["lastChecks"]): string {
  if (!c) return "checks: none ran yet"
  return (
    `checks (it. ${c.iteration}): ${c.errors} err, ${c.warnings} warn` +
    `${c.testsRun ? `, ${c.testsFailed}/${c.testsRun} tests failed` : ""}`
  )
}

const short = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * The sidebar panel's lines for the session's loop (`loop`) and the project's worktree loops; empty when there is
 * neither.
 */
export function sidebarLines(
  loop: (LoopSummary & { evidence?: Evidence | null }) | undefined,
  worktrees: readonly LoopSummary[],
  now: number,
  width = 38,
): string[] {
  const lines: string[] = []
  if (loop) {
    lines.push(
      stateText(loop, now),
      // Once it completed: what that rested on (issue 39).
      ...(loop.evidence ? [short(evidenceVerdict(loop.evidence), width)] : []),
      // And how the replay of the start's tests proved it, or why not (issue 46).
      ...(loop.evidence?.replay ? [short(`replay: ${replayLine(loop.evidence.replay)}`, width)] : []),
      `iteration ${loop.iteration} of ${loop.maxIterations}`,
      ...(loop.plan
        ? [
            `story ` +
              (loop.plan.current
                ? short(`${loop.plan.current.id} ${loop.plan.current.title}`, width - 6)
                : "(all done)") +
              ` · ${loop.plan.done}/${loop.plan.total}`,
          ]
        : []),
      `breaker ${loop.breaker.state}` +
        (loop.breaker.state === "CLOSED" || !loop.breaker.reason ? "" : `: ${short(loop.breaker.reason, width - 16)}`),
      `struggle: ${loop.struggle.signal}`,
      checksText(loop.lastChecks),
      `${thousands(loop.tokens)} tokens · $${loop.cost.toFixed(2)}`,
    )
  }
  if (worktrees.length) {
    if (lines.length) lines.push("")
    lines.push(
      "worktree loops:",
      ...worktrees.map((w) => short(`${w.worktree} · ${stateText(w, now)} · ${w.iteration}/${w.maxIterations}`, width)),
    )
  }
  return lines
}

const BAR = "▁▂▃▄▅▆▇█"
/** The lowest block for nothing, the highest for `max`. */
function bar(value: number, max: number): string {
  if (max <= 0 || value <= 0) return BAR[0] as string
  return BAR[Math.min(BAR.length - 1, 1 + Math.floor((value / max) * (BAR.length - 2)))] as string
}

/** A small text chart of checks (errors + failed tests) and tokens per iteration, the newest `width` iterations. */
export function chartLines(history: readonly IterationJSON[], width = 60): string[] {
  if (history.length === 0) return []
  const rows = history.slice(-width)
  const problems = rows.map((r) => (r.checks ? r.checks.errors + r.checks.testsFailed : 0))
  const maxProblems = Math.max(...problems)
  const maxTokens = Math.max(...rows.map((r) => r.tokens))
  return [
    `problems ${rows.map((r, i) => (r.checks ? bar(problems[i] as number, maxProblems) : "·")).join("")}  (max ` +
      `${maxProblems})`,
    `tokens   ${rows.map((r) => bar(r.tokens, maxTokens)).join("")}  (max ${thousands(maxTokens)})`,
    `         iterations ${rows[0]?.iteration}–${rows.at(-1)?.iteration}`,
  ]
}

/**
 * The full-screen view's detail of the selected loop: its summary, chart and iteration table (its newest `maxRows`
 * rows).
 */
export function viewDetailLines(
  selected: NonNullable<StatusDocument["selected"]>,
  maxRows = Number.POSITIVE_INFINITY,
): string[] {
  const chart = chartLines(selected.history)
  const rows = selected.history.length > maxRows ? selected.history.slice(-Math.max(1, maxRows)) : selected.history
  const earlier = selected.history.length - rows.length
  return [
    ...loopDetail(selected),
    ...(chart.length ? ["", ...chart] : []),
    "",
    ...historyTable(rows),
    ...(earlier ? [`(${earlier} earlier iteration${earlier === 1 ? "" : "s"} not shown)`] : []),
  ]
}

/** The view's loop list: one line per loop, the selected one marked. */
export function viewListLines(loops: readonly LoopSummary[], selected: string | undefined, now: number): string[] {
  if (loops.length === 0) return ["No Ralph loop in this project yet. /ralph <task> starts one."]
  return loops.map((l) => `${l.id === selected ? "›" : " "} ${viewLoopLine(l, now)}`)
}

/** The loop `delta` places from `selected` in `loops` (clamped to the list; the first when none is selected). */
export function moveSelection(
  loops: readonly { id: string }[],
  selected: string | undefined,
  delta: number,
): string | undefined {
  if (loops.length === 0) return undefined
  const at = loops.findIndex((l) => l.id === selected)
  if (at < 0) return loops[0]?.id
  return loops[Math.min(loops.length - 1, Math.max(0, at + delta))]?.id
}

/** What /ralph-help adds in the TUI: which commands run here, and that they ask for their input. */
export const TUI_HELP = [
  "In this TUI (ralph-loop's TUI half in tui.json) these run here, no model turn:",
  "/ralph-status /ralph-pause /ralph-resume /cancel-ralph /ralph-rollback /ralph-hint",
  "/ralph-remember /ralph-memory /ralph-loops /ralph-help. Type them without arguments:",
  "a checkpoint is picked from a list; a hint or a memory entry is asked in a dialog.",
  "/ralph-loops: every loop of the project full screen (↑/↓, p, r, c, b, Esc back).",
  "Elsewhere (opencode run, the web UI) they are server commands: one model turn each.",
].join("\n")

/** The keys the view answers, as its last line says them. */
export const VIEW_KEYS = "↑/↓ select · p pause · r resume · c cancel · b roll back · esc back"

/** One line of the view's loop list. */
const viewLoopLine = (l: LoopSummary, now: number): string =>
  `${l.worktree ? `[${l.worktree}] ` : ""}${l.id.slice(0, 24)} · ${stateText(l, now)} · ` +
  `${l.iteration}/${l.maxIterations} · ${seconds(l.iterationMs)}/it · ${short(l.task, 40)}`

/**
 * A checkpoint in the rollback picker: its number and what it holds; when, files changed since the one before, the
 * checks then.
 */
export function checkpointOption(
  c: { number: number; iteration?: number | undefined; at: number },
  filesChanged: number | undefined,
  row: IterationJSON | undefined,
): { title: string; description: string } {
  const what =
    c.iteration === undefined
      ? "saved before a rollback"
      : c.iteration === 0
        ? "before the loop"
        : `iteration ${c.iteration}`
  const checks = row?.checks
    ? `${row.checks.errors} err, ${row.checks.testsFailed}/${row.checks.testsRun} tests failed`
    : c.iteration
      ? "checks not run"
      : ""
  const files = filesChanged === undefined ? "" : `${filesChanged} file${filesChanged === 1 ? "" : "s"} changed`
  return {
    title: `${c.number} · ${what}`,
    description: [new Date(c.at).toISOString().slice(11, 19), files, checks].filter(Boolean).join(" · "),
  }
}
