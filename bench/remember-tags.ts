// Benchmark 15 — reading `<remember>` tags in a hostile reply (issue 29): the plugin reads every text
// part the model writes for `<remember>` tags, on OpenCode's event loop (experimental.text.complete).
// The old patterns were quadratic in it: a reply holding `<remember` and 100 KB of blank lines took
// 27 s. Here: 1 MB replies of the shapes that hurt them — blank lines after `<remember`, an unclosed
// fence before lines that start blank, unclosed tags, quoted lines after blank runs — and an
// ordinary one with a tag on every line, each also at 2 MB to show the growth. Run in a child node
// process on the built dist/.
import { fileURLToPath } from "node:url"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface RememberTagsCase {
  name: string
  bytes: number
  medianMs: number
  /** Tags read (the ordinary reply has thousands; the hostile ones few or none). */
  requests: number
}

export interface RememberTagsResult {
  runs: number
  cases: RememberTagsCase[]
  /** The slowest 1 MB hostile reply. */
  slowestHostile1MbMs: number
  /** The 2 MB time over the 1 MB time of the same shape, the worst shape (2 = linear, 4 = quadratic). */
  twoToOneMbRatio: number
}

const MB = 1024 * 1024
const fill = (piece: string, bytes: number) => piece.repeat(Math.ceil(bytes / piece.length)).slice(0, bytes)

const SHAPES: [name: string, hostile: boolean, make: (bytes: number) => string][] = [
  ["`<remember` then blank lines", true, (bytes) => `<remember${fill("\n", bytes - 9)}`],
  [
    "unclosed fence, then lines starting blank",
    true,
    (bytes) => `<remember>x</remember>\n~~~\n${fill("\t\n", bytes - 28)}\``,
  ],
  ["unclosed `<remember>` tags", true, (bytes) => fill("<remember>", bytes)],
  ["quoted lines after blank runs", true, (bytes) => `<remember>${fill("\n \n\t\n> q", bytes - 10)}`],
  [
    "ordinary reply, a tag on every line",
    false,
    (bytes) => fill("Done. <remember>Run the tests with npm test</remember> and moved on.\n", bytes),
  ],
]

async function measure(): Promise<RememberTagsResult> {
  const { rememberRequests } =
    await loadDist<typeof import("../src/memory/remember-tags.js")>("memory/remember-tags.js")
  const runs = QUICK ? 5 : 15
  const time = (text: string): { medianMs: number; requests: number } => {
    const times: number[] = []
    let requests = 0
    for (let i = 0; i < runs + 2; i += 1) {
      const started = process.hrtime.bigint()
      requests = rememberRequests(text).length
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (i >= 2) times.push(ms) // the first two warm the JIT up
    }
    return { medianMs: median(times), requests }
  }
  const cases: RememberTagsCase[] = []
  let worstRatio = 0
  let slowestHostile = 0
  for (const [shape, hostile, make] of SHAPES) {
    const [one, two] = [MB, 2 * MB].map((bytes) => ({ bytes, ...time(make(bytes)) })) as [Measured, Measured]
    for (const m of [one, two])
      cases.push({
        name: `${m.bytes / MB} MB ${hostile ? "hostile: " : ""}${shape}`,
        bytes: m.bytes,
        medianMs: round(m.medianMs, 3),
        requests: m.requests,
      })
    worstRatio = Math.max(worstRatio, two.medianMs / one.medianMs)
    if (hostile) slowestHostile = Math.max(slowestHostile, one.medianMs)
  }
  return { runs, cases, slowestHostile1MbMs: round(slowestHostile, 3), twoToOneMbRatio: round(worstRatio, 2) }
}

type Measured = { bytes: number; medianMs: number; requests: number }

export function runRememberTagsBench(): Promise<RememberTagsResult> {
  return runChild<RememberTagsResult>(fileURLToPath(import.meta.url), [], {}, 5 * 60_000)
}

runAsChild(import.meta.url, "remember-tags", measure)
