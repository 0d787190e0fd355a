// ralph_report.html's evidence section (issue 39): what the loop's completion rested on — verified
// or why not, each check after the last change with its exit code and test counts, the files the
// loop changed, the replay of the start's tests (each check, its failing tests, the changed
// expectations), the review, the guard's findings — and for a plan loop, each story's verdict. The
// elements carry data-* attributes with the values, for a reader (or a test) that wants them. Pure.
import { findingKey, findingText } from "../evidence/finding.js"
import { evidenceVerdict } from "../evidence/guard-summary.js"
import type { Evidence, Weakened } from "../evidence/record.js"
import { replayLine } from "../evidence/replay-record.js"
import type { StatusDocument } from "./document.js"
import { escapeXml as esc } from "./report-svg.js"

type Selected = NonNullable<StatusDocument["selected"]>

function checksTable(checks: Evidence["checks"]): string {
  if (checks.length === 0) return "<p>No check ran after the last change.</p>"
  const rows = checks.map((c) => {
    const counts = c.tests
      ? ` data-passed="${c.tests.passed}" data-failed="${c.tests.failed}" data-skipped="${c.tests.skipped}"`
      : ""
    const tests = c.tests ? `${c.tests.passed} passed, ${c.tests.failed} failed, ${c.tests.skipped} skipped` : "—"
    const cells = [c.name, c.command, c.exitCode === null ? "did not exit" : String(c.exitCode), tests]
    const ranAt = new Date(c.ranAt).toISOString()
    return (
      `<tr data-check="${esc(c.name)}" data-exit-code="${c.exitCode ?? ""}"${counts}>` +
      `${cells.map((cell) => `<td>${esc(cell)}</td>`).join("")}<td>${esc(ranAt)}</td>` +
      `<td><code>${esc(c.outputSha256.slice(0, 12))}</code></td></tr>`
    )
  })
  const header = ["check", "command", "exit code", "tests", "ran at", "output sha256"]
  return (
    `<table class="checks">\n<thead><tr>${header.map((h) => `<th>${h}</th>`).join("")}</tr></thead>\n` +
    `<tbody>\n${rows.join("\n")}\n</tbody>\n</table>`
  )
}

/** The replay of the start's tests (issue 46): what it did in a line, then each check it ran with its failing tests. */
function replaySection(replay: Evidence["replay"]): string {
  if (!replay) return ""
  const said = `Replay of the start's tests: ${esc(replayLine(replay))}`
  const line = `<p class="replay" data-replay="${replay.status}">${said}</p>`
  if (replay.status !== "ran") return line
  const rows = replay.checks.map((c) => {
    const tests = c.tests ? `${c.tests.passed} passed, ${c.tests.failed} failed, ${c.tests.skipped} skipped` : "—"
    const cells = [c.name, c.exitCode === null ? "did not exit" : String(c.exitCode), tests, c.failures.join("; ")]
    const tds = cells.map((x) => `<td>${esc(x)}</td>`).join("")
    return `<tr data-replay-check="${esc(c.name)}" data-passed="${c.passed}">${tds}</tr>`
  })
  const header = ["check", "exit code", "tests", "failing"].map((h) => `<th>${h}</th>`).join("")
  const changed = replay.expectations.map(
    (e) =>
      `<li data-expectation="${esc(e.name)}"><code>${esc(e.file)}</code> ${esc(e.name)}: ` +
      `<code>${esc(e.start)}</code> → <code>${esc(e.end)}</code></li>`,
  )
  return [
    line,
    `<table class="replay">\n<thead><tr>${header}</tr></thead>\n<tbody>\n${rows.join("\n")}\n</tbody>\n</table>`,
    ...(changed.length > 0
      ? [`<p>Changed expectations:</p>\n<ul class="expectations">\n${changed.join("\n")}\n</ul>`]
      : []),
  ].join("\n")
}

function filesList(files: readonly string[]): string {
  if (files.length === 0) return "<p>Files changed: none.</p>"
  const items = files.map((f) => `<li data-file="${esc(f)}"><code>${esc(f)}</code></li>`)
  return `<p>Files changed (${files.length}):</p>\n<ul class="changed-files">\n${items.join("\n")}\n</ul>`
}

function reviewLine(review: Evidence["review"]): string {
  if (!review) return `<p data-review="none">Review: none.</p>`
  const reasons = review.reasons.length > 0 ? ` — ${review.reasons.join("; ")}` : ""
  return `<p data-review="${review.verdict}">Review: ${esc(review.verdict)}${esc(reasons)}</p>`
}

function findingsList(findings: readonly Weakened[], iteration: number | null): string {
  if (findings.length === 0) return "<p>The guard found nothing that weakens the checks.</p>"
  const items = findings.map(
    (f) =>
      `<li data-finding="${f.kind}" data-accepted="${f.accepted}">` +
      `${f.accepted ? (f.acceptedBy === "you" ? "accepted by you" : "accepted") : "refuses"}: ` +
      `${esc(findingText(f))} <code>${esc(findingKey(f))}</code></li>`,
  )
  const at = iteration === null ? "" : ` (iteration ${iteration})`
  return `<p>The guard's findings${at}:</p>\n<ul class="guard">\n${items.join("\n")}\n</ul>`
}

function storiesTable(plan: NonNullable<Selected["plan"]>): string {
  const rows = plan.stories.map((s) => {
    const said = s.evidence ? evidenceVerdict(s.evidence) : s.done ? "done before this loop" : "not done"
    const verified = s.evidence ? ` data-verified="${s.evidence.verified}"` : ""
    const cells = [s.id, s.title, said].map((cell) => `<td>${esc(cell)}</td>`).join("")
    return `<tr data-story="${esc(s.id)}"${verified}>${cells}</tr>`
  })
  return (
    `<table class="stories">\n<thead><tr><th>story</th><th>title</th><th>evidence</th></tr></thead>\n` +
    `<tbody>\n${rows.join("\n")}\n</tbody>\n</table>`
  )
}

/** The section, or "" when there is nothing to show (a loop without evidence, findings or stories done here). */
export function evidenceSection(loop: Selected): string {
  const evidence = loop.evidence
  const findings = evidence ? evidence.weakened : (loop.guard?.findings ?? [])
  const stories = loop.plan?.stories.some((s) => s.evidence) ? storiesTable(loop.plan) : ""
  if (!evidence && findings.length === 0 && !stories) return ""
  const parts = evidence
    ? [
        `<p class="verdict">${esc(evidenceVerdict(evidence))}</p>`,
        checksTable(evidence.checks),
        replaySection(evidence.replay),
        filesList(evidence.changedFiles),
        reviewLine(evidence.review),
        findingsList(findings, null),
      ]
    : [
        "<p>The loop did not complete: no completion to rest on.</p>",
        ...(findings.length > 0 ? [findingsList(findings, loop.guard?.iteration ?? null)] : []),
      ]
  const verified = evidence ? ` data-verified="${evidence.verified}"` : ""
  const body = [...parts, stories].filter(Boolean).join("\n")
  return `<h2>Evidence</h2>\n<section class="evidence"${verified}>\n${body}\n</section>`
}
