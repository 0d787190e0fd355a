// ralph_report.html: the loop at a glance, in one self-contained file — inline SVG charts (check
// errors and warnings, tokens, cost and time per iteration, stories done), the struggle signal, the
// evidence its completion rested on (report-evidence.ts) and the iteration table. No script, no
// network: it opens from disk, in a mail, in CI artifacts. Pure.
import type { IterationJSON, StatusDocument } from "./document.js"
import { historyCells, loopDetail, seconds } from "./lines.js"
import { evidenceSection } from "./report-evidence.js"
import { escapeXml as esc, lineChart, type Chart } from "./report-svg.js"

type Selected = NonNullable<StatusDocument["selected"]>

/**
 * One value per iteration: a turn decided twice (a back-off resumed it) adds its tokens, cost and time; checks and
 * stories are the last seen.
 */
function perIteration(rows: readonly IterationJSON[]): IterationJSON[] {
  const by = new Map<number, IterationJSON>()
  for (const row of rows) {
    const seen = by.get(row.iteration)
    by.set(
      row.iteration,
      seen
        ? {
            ...row,
            tokens: seen.tokens + row.tokens,
            cost: seen.cost + row.cost,
            durationMs: seen.durationMs + row.durationMs,
            checks: row.checks ?? seen.checks,
            storiesDone: row.storiesDone ?? seen.storiesDone,
          }
        : row,
    )
  }
  return [...by.values()].sort((a, b) => a.iteration - b.iteration)
}

/** The charts of a loop; the stories chart only for a plan loop. */
function reportCharts(loop: Selected): Chart[] {
  const rows = perIteration(loop.history)
  const point = (y: (r: IterationJSON) => number | null) =>
    rows.flatMap((r) => (y(r) === null ? [] : [{ x: r.iteration, y: y(r) as number }]))
  const charts: Chart[] = [
    {
      id: "checks",
      title: "Check errors and warnings per iteration (iterations whose checks ran)",
      yLabel: "issues",
      series: [
        { name: "errors", color: "#c0392b", points: point((r) => r.checks?.errors ?? null) },
        { name: "warnings", color: "#e67e22", points: point((r) => r.checks?.warnings ?? null) },
      ],
    },
    {
      id: "tokens",
      title: "Tokens per iteration",
      yLabel: "tokens",
      series: [{ name: "tokens", color: "#2c7fb8", points: point((r) => r.tokens) }],
    },
    {
      id: "cost",
      title: "Cost per iteration",
      yLabel: "cost",
      series: [{ name: "cost", color: "#8e44ad", points: point((r) => r.cost) }],
      format: (y) => y.toFixed(4),
    },
    {
      id: "time",
      title: "Time per iteration",
      yLabel: "time",
      series: [{ name: "time", color: "#16a085", points: point((r) => r.durationMs) }],
      format: (ms) => seconds(ms),
    },
  ]
  if (loop.plan)
    charts.push({
      id: "stories",
      title: `Stories done over time (of ${loop.plan.total})`,
      yLabel: "stories done",
      series: [{ name: "stories done", color: "#27ae60", points: point((r) => r.storiesDone) }],
    })
  return charts
}

const SIGNAL_COLOR = { ok: "#27ae60", slowing: "#e67e22", stuck: "#c0392b" }

export function renderHtmlReport(loop: Selected, now: number): string {
  const charts = reportCharts(loop)
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ralph report · ${esc(loop.task)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
.signal { display: inline-block; padding: .1rem .6rem; border-radius: .8rem; color: #fff; font-weight: 600; }
ul.facts { padding-left: 1.2rem; } figure { margin: 1rem 0; } figcaption { font-weight: 600; }
svg.chart { max-width: 100%; height: auto; border: 1px solid #eee; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: .2rem .5rem; text-align: left; white-space: nowrap; }
</style>
</head>
<body>
<h1>Ralph report</h1>
<p><span class="signal" style="background:${SIGNAL_COLOR[loop.struggle.signal]}"
  data-signal="${loop.struggle.signal}">${loop.struggle.signal}</span> ${esc(loop.struggle.reason)}</p>
<ul class="facts">
${loopDetail({ ...loop, guard: null, evidence: null }) // the evidence section says these
  .filter((line) => !line.startsWith("Struggle: ")) // the badge above says it
  .map((line) => `<li>${esc(line)}</li>`)
  .join("\n")}
<li>Written ${esc(new Date(now).toISOString())}</li>
</ul>
${evidenceSection(loop)}
<h2>Charts</h2>
${charts.map((c) => `<figure><figcaption>${esc(c.title)}</figcaption>${lineChart(c)}</figure>`).join("\n")}
<h2>Iterations</h2>
${htmlTable(loop.history)}
</body>
</html>
`
}

/** The iteration table, with the same columns as the CLI's. */
function htmlTable(rows: readonly IterationJSON[]): string {
  if (rows.length === 0) return "<p>No iteration decided yet.</p>"
  const [header = [], ...body] = historyCells(rows)
  const row = (cells: string[], tag: "th" | "td") =>
    `<tr>${cells.map((c) => `<${tag}>${esc(c)}</${tag}>`).join("")}</tr>`
  return (
    `<table class="iterations">\n<thead>` +
    `${row(header, "th")}</thead>\n<tbody>\n${body.map((r) => row(r, "td")).join("\n")}\n</tbody>\n</table>`
  )
}
