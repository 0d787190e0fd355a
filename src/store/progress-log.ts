// The progress log (`.opencode/ralph-loop/progress.md`, seed 003's progress tracker) in the layout
// the common Ralph setups use: a `## Codebase Patterns` section of reusable learnings at the top,
// then one entry per decided iteration, entries separated by `---` lines. Bounded: beyond
// PROGRESS_MAX_CHARS the oldest entries are rotated out. Pure: text in, text out.

/** Beyond this size the oldest entries move to `progress-<date>.md`… */
export const PROGRESS_MAX_CHARS = 100_000
/** …until the file is at most this big again. */
export const PROGRESS_KEEP_CHARS = 50_000
/** Patterns kept (the oldest go first). */
export const MAX_PATTERNS = 40
/** What of the log goes into a prompt: the patterns and the newest entries, at most this much… */
export const PROGRESS_EXCERPT_CHARS = 1_500
/** …and at most this many entries. */
export const EXCERPT_ENTRIES = 3

const TITLE = "# Ralph progress log"
const PATTERNS = "## Codebase Patterns"
const NONE_YET = "(none yet — the model adds them with <learning>…</learning>)"
const SEPARATOR = "---"

export interface ProgressDoc {
  patterns: string[]
  /** Lines of the top part that are neither the title nor a pattern (the user's own): kept. */
  extra: string[]
  /** Oldest first, without their separators. */
  entries: string[]
}

export function parseProgress(text: string): ProgressDoc {
  const lines = text.replace(/\r\n/g, "\n").split("\n")
  const cut = lines.findIndex((line) => line.trim() === SEPARATOR)
  const head = cut < 0 ? lines : lines.slice(0, cut)
  const patterns: string[] = []
  const extra: string[] = []
  let inPatterns = false
  for (const line of head) {
    if (line.trim() === TITLE || line.trim() === NONE_YET) continue
    if (line.trim() === PATTERNS) {
      inPatterns = true
      continue
    }
    if (/^#{1,6}\s/.test(line)) inPatterns = false
    // The text starts at its first non-blank (`\S`): with `.*\S`, a long blank run was split between
    // `\s+` and `.*` every possible way.
    const bullet = /^\s*[-*]\s+(\S(?:.*\S)?)\s*$/.exec(line)
    if (inPatterns && bullet) patterns.push(bullet[1] as string)
    else if (line.trim() || extra.length > 0) extra.push(line)
  }
  while (extra.length > 0 && !extra.at(-1)?.trim()) extra.pop()
  const entries: string[] = []
  let current: string[] = []
  for (const line of cut < 0 ? [] : lines.slice(cut + 1)) {
    if (line.trim() === SEPARATOR) {
      if (current.join("\n").trim()) entries.push(current.join("\n").trim())
      current = []
    } else current.push(line)
  }
  if (current.join("\n").trim()) entries.push(current.join("\n").trim())
  return { patterns, extra, entries }
}

export function renderProgress(doc: ProgressDoc): string {
  const patterns = doc.patterns.length ? doc.patterns.map((p) => `- ${p}`) : [NONE_YET]
  const head = [TITLE, "", PATTERNS, ...patterns, ...(doc.extra.length ? ["", ...doc.extra] : []), "", SEPARATOR, ""]
  return `${[...head, ...doc.entries.flatMap((entry) => [entry, "", SEPARATOR, ""])].join("\n")}`
}

const normalize = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim()

/** New learnings join the patterns (once each; the oldest go beyond MAX_PATTERNS). */
export function addPatterns(patterns: readonly string[], learnings: readonly string[]): string[] {
  const seen = new Set(patterns.map(normalize))
  const added = learnings.filter((l) => {
    const key = normalize(l)
    if (!key || seen.has(key)) return false
    seen.add(key)
    return true
  })
  return [...patterns, ...added].slice(-MAX_PATTERNS)
}

/**
 * The log with one more entry (and its learnings among the patterns). `rotated`: the oldest entries
 * moved out to keep it within `max` (the newest entry always stays).
 */
export function appendEntry(
  text: string,
  entry: string,
  learnings: readonly string[],
  max = PROGRESS_MAX_CHARS,
  keep = PROGRESS_KEEP_CHARS,
): { text: string; rotated: string[] } {
  const doc = parseProgress(text)
  const next: ProgressDoc = {
    ...doc,
    patterns: addPatterns(doc.patterns, learnings),
    entries: [...doc.entries, entry.trim()],
  }
  let rendered = renderProgress(next)
  if (rendered.length <= max) return { text: rendered, rotated: [] }
  const rotated: string[] = []
  while (next.entries.length > 1 && rendered.length > keep) {
    rotated.push(next.entries.shift() as string)
    rendered = renderProgress(next)
  }
  return { text: rendered, rotated }
}

/** The text of a rotated-out file: the entries that left the log, oldest first. */
export function renderRotated(existing: string | undefined, entries: readonly string[], date: string): string {
  const head = existing?.trimEnd() || `# Ralph progress log — older entries (rotated ${date})`
  return `${[head, "", ...entries.flatMap((entry) => [SEPARATOR, "", entry, ""])].join("\n")}`
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * The patterns and the newest entries, within `budget` characters ("" for an empty log). With
 * `loopID`, only that loop's entries: the log is the project's, and another loop's iterations are
 * not this loop's history (the patterns are everyone's).
 */
export function progressExcerpt(text: string | undefined, budget = PROGRESS_EXCERPT_CHARS, loopID?: string): string {
  if (!text) return ""
  const doc = parseProgress(text)
  const patterns: string[] = []
  let used = 0
  for (const pattern of [...doc.patterns].reverse()) {
    const line = `- ${clip(pattern, 200)}`
    if (used + line.length + 1 > budget / 2) break
    patterns.unshift(line)
    used += line.length + 1
  }
  const entries: string[] = []
  const own =
    loopID === undefined ? doc.entries : doc.entries.filter((entry) => entry.includes(`\n- Loop: ${loopID} — `))
  for (const entry of own.slice(-EXCERPT_ENTRIES).reverse()) {
    const shown = clip(entry.replace(/^## /, "### "), 600)
    if (used + shown.length + 1 > budget) break
    entries.unshift(shown)
    used += shown.length + 1
  }
  return [
    ...(patterns.length ? ["Codebase patterns learned so far:", ...patterns] : []),
    ...(entries.length
      ? [...(patterns.length ? [""] : []), "Newest entries:", ...entries.flatMap((e, i) => (i > 0 ? ["", e] : [e]))]
      : []),
  ].join("\n")
}
