// A line chart as inline SVG: no script, no stylesheet outside the element, readable offline. Each
// point is a <circle> with its iteration (data-iteration) and value (data-value) and a <title> tooltip.
// Pure.

interface Series {
  name: string
  color: string
  points: ReadonlyArray<{ x: number; y: number }>
}

export interface Chart {
  /** Names the chart (data-chart), for readers and tests. */
  id: string
  title: string
  yLabel: string
  series: readonly Series[]
  /** How a value reads in a tooltip and on the axis. */
  format?: (y: number) => string
}

const W = 640
const H = 220
const M = { left: 56, right: 16, top: 28, bottom: 36 }

export const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const round = (n: number) => Math.round(n * 10) / 10

export function lineChart(chart: Chart): string {
  const format = chart.format ?? ((y: number) => y.toLocaleString("en"))
  const all = chart.series.flatMap((s) => s.points)
  const xs = all.map((p) => p.x)
  const [x0, x1] = xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 1]
  const yMax = Math.max(0, ...all.map((p) => p.y)) || 1
  const px = (x: number) =>
    round(M.left + (x1 === x0 ? (W - M.left - M.right) / 2 : ((x - x0) / (x1 - x0)) * (W - M.left - M.right)))
  const py = (y: number) => round(H - M.bottom - (y / yMax) * (H - M.top - M.bottom))
  const xTicks = [...new Set(xs)].sort((a, b) => a - b)
  const step = Math.max(1, Math.ceil(xTicks.length / 12))
  const grid = [0, yMax / 2, yMax]
    .map(
      (y) =>
        `<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/><text ` +
        `x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${escapeXml(format(y))}</text>`,
    )
    .join("")
  const xLabels = xTicks
    .filter((_, i) => i % step === 0)
    .map((x) => `<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${x}</text>`)
    .join("")
  const series = chart.series
    .map((s) => {
      const sorted = [...s.points].sort((a, b) => a.x - b.x)
      const line =
        sorted.length > 1
          ? `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="` +
            `${sorted.map((p) => `${px(p.x)},${py(p.y)}`).join(" ")}"/>`
          : ""
      const dots = sorted
        .map(
          (p) =>
            `<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3.5" fill="${s.color}" ` +
            `data-series="${escapeXml(s.name)}" data-iteration="${p.x}" data-value="` +
            `${p.y}"><title>${escapeXml(`${s.name}, iteration ${p.x}: ${format(p.y)}`)}</title></circle>`,
        )
        .join("")
      return `<g class="series">${line}${dots}</g>`
    })
    .join("")
  const legend = chart.series
    .map(
      (s, i) =>
        `<rect x="${M.left + i * 150}" y="8" width="10" height="10" fill="${s.color}"/><text ` +
        `x="${M.left + i * 150 + 14}" y="17">${escapeXml(s.name)}</text>`,
    )
    .join("")
  const empty = all.length === 0 ? `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">no data</text>` : ""
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="${escapeXml(chart.id)}" width="${W}" ` +
      `height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeXml(chart.title)}" ` +
      `font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(chart.title)}</title>`,
    grid,
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#888"/>`,
    xLabels,
    `<text x="${(W + M.left) / 2}" y="${H - 4}" text-anchor="middle">iteration</text>`,
    `<text transform="translate(12 ${(H - M.bottom + M.top) / 2}) rotate(-90)" text-anchor="middle">` +
      `${escapeXml(chart.yLabel)}</text>`,
    legend,
    series,
    empty,
    "</svg>",
  ].join("")
}
