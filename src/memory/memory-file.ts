// The project memory file (seed 001's memory, seed 003's notepad): markdown a person can read and
// edit, in three sections — `## Priority` (always given to loops), `## Working memory` (dated
// entries, pruned oldest first) and `## Manual` (the user's own, never changed by the plugin) — and,
// while a loop has notes not yet verified, `## Staging` (see staging.ts).
// Pure: text in, text out. Anything the plugin does not recognise is kept as it was written.
import { mentionedFiles } from "../checks/findings.js"
import { lessonParts } from "./lessons.js"

export type MemorySection = "priority" | "working" | "staging"

export interface MemoryEntry {
  /** YYYY-MM-DD of the newest time it was remembered; undefined for a line written by hand. */
  date?: string
  /** Where it came from: remember, command, lesson, circular fix… */
  source: string
  /** How many times the same text was remembered. */
  count: number
  text: string
  /** A line the plugin did not write (a hand-written note, prose): written back as it was. */
  raw?: string
}

type Block = { kind: "text"; raw: string } | { kind: MemorySection; heading: string; entries: MemoryEntry[] }

export interface MemoryFile {
  blocks: Block[]
}

export const HEADINGS: Record<MemorySection | "manual", string> = {
  priority: "## Priority",
  working: "## Working memory",
  staging: "## Staging",
  manual: "## Manual",
}
const INTRO = [
  "# Ralph memory",
  "",
  "What ralph-loop remembers for this project: lessons of earlier loops and what you or the model asked",
  "it to keep (`<remember>…</remember>`, `/ralph-remember`). Loops get the priority entries and the",
  "working entries relevant to their task. Edit freely; `## Manual` is yours alone.",
  "",
].join("\n")

export class BrokenMemoryError extends Error {
  override name = "BrokenMemoryError"
}

const ENTRY = /^- (\d{4}-\d{2}-\d{2}) · ([^·×\n]+?)(?: ×(\d+))? · (.+)$/
const sectionOf = (line: string): MemorySection | "manual" | undefined => {
  const heading = line.trim().replace(/\s+/g, " ").toLowerCase()
  return (Object.keys(HEADINGS) as Array<MemorySection | "manual">).find(
    (key) => HEADINGS[key].toLowerCase() === heading,
  )
}

export const emptyMemory = (): MemoryFile => ({
  blocks: [
    { kind: "text", raw: INTRO },
    { kind: "priority", heading: HEADINGS.priority, entries: [] },
    { kind: "working", heading: HEADINGS.working, entries: [] },
    { kind: "text", raw: `${HEADINGS.manual}\n\n` },
  ],
})

/**
 * Reads the file tolerantly: unknown lines are kept, missing sections are added when written.
 * Throws `BrokenMemoryError` only for what is not a memory file at all (binary content, a section
 * twice, text without any of the three headings).
 */
export function parseMemory(text: string): MemoryFile {
  if (text.trim() === "") return emptyMemory()
  if (/[\u0000\uFFFD]/.test(text)) throw new BrokenMemoryError("holds binary or non-UTF-8 content")
  const blocks: Block[] = []
  const seen = new Set<string>()
  let current: Block = { kind: "text", raw: "" }
  blocks.push(current)
  let fence: string | undefined
  for (const line of text.split(/(?<=\n)/)) {
    // A heading inside a fenced code block is text, not a section.
    const marker = /^\s*(```|~~~)/.exec(line)?.[1]
    if (marker) fence = fence === undefined ? marker : fence === marker ? undefined : fence
    const section = fence === undefined && !marker ? sectionOf(line) : undefined
    if (section) {
      if (seen.has(section)) throw new BrokenMemoryError(`has the heading "${HEADINGS[section]}" twice`)
      seen.add(section)
      // The manual section is text the plugin never parses: kept byte for byte, heading included.
      current =
        section === "manual" ? { kind: "text", raw: line } : { kind: section, heading: line.trimEnd(), entries: [] }
      blocks.push(current)
    } else if (current.kind === "text") current.raw += line
    else addLine(current.entries, line.trimEnd())
  }
  if (seen.size === 0) throw new BrokenMemoryError(`has none of the headings ${Object.values(HEADINGS).join(", ")}`)
  return { blocks: blocks.filter((b) => b.kind !== "text" || b.raw !== "") }
}

function addLine(entries: MemoryEntry[], line: string): void {
  if (line.trim() === "") return
  const match = ENTRY.exec(line)
  if (match)
    entries.push({ date: match[1], source: match[2]!.trim(), count: Number(match[3] ?? 1), text: match[4]!.trim() })
  else entries.push({ source: "hand-written", count: 1, text: line.replace(/^\s*[-*]\s+/, "").trim(), raw: line })
}

export function serializeMemory(memory: MemoryFile): string {
  const blocks = withAllSections(memory).blocks
  return blocks
    .map((block, i) => {
      if (block.kind !== "text")
        return `${block.heading}\n\n${block.entries.map(entryLine).join("")}${block.entries.length ? "\n" : ""}`
      // Text is written as it was read; only a missing line end before the next section is added.
      return i < blocks.length - 1 && !block.raw.endsWith("\n") ? `${block.raw}\n` : block.raw
    })
    .join("")
}

const entryLine = (e: MemoryEntry): string =>
  `${e.raw ?? `- ${e.date} · ${e.source}${e.count > 1 ? ` ×${e.count}` : ""} · ${e.text}`}\n`

/**
 * The file with the plugin's sections present (added before `## Manual`, or at the end); staging only once it is
 * needed.
 */
function withAllSections(memory: MemoryFile, staging = false): MemoryFile {
  const blocks = [...memory.blocks]
  for (const kind of staging ? (["priority", "working", "staging"] as const) : (["priority", "working"] as const)) {
    if (blocks.some((b) => b.kind === kind)) continue
    const manual = blocks.findIndex((b) => b.kind === "text" && sectionOf(b.raw.split("\n")[0] ?? "") === "manual")
    const block: Block = { kind, heading: HEADINGS[kind], entries: [] }
    if (manual >= 0) blocks.splice(manual, 0, block)
    else blocks.push(block)
  }
  return { blocks }
}

export function entries(memory: MemoryFile, section: MemorySection): MemoryEntry[] {
  return memory.blocks.flatMap((b) => (b.kind === section ? b.entries : []))
}

/** The manual section as written (heading included), or undefined. */
export function manualText(memory: MemoryFile): string | undefined {
  const block = memory.blocks.find((b) => b.kind === "text" && sectionOf(b.raw.split("\n")[0] ?? "") === "manual")
  return block?.kind === "text" ? block.raw : undefined
}

/** The date an entry carries: YYYY-MM-DD (UTC). */
export const isoDate = (now: number): string => new Date(now).toISOString().slice(0, 10)

const normal = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim()

/** One line of text for an entry: newlines folded, bounded. */
export const entryText = (text: string): string => text.replace(/\s+/g, " ").trim().slice(0, 500)

/**
 * Remembers `text` in `section`: the same text again (in either section) is one entry with a
 * count and the newer date. Working memory keeps its newest `maxEntries`.
 */
export function remember(
  memory: MemoryFile,
  section: MemorySection,
  item: { text: string; source: string; date: string },
  maxEntries: number,
): MemoryFile {
  const text = entryText(item.text)
  if (text === "") return memory
  const next = withAllSections(memory, section === "staging")
  const blocks = next.blocks.map((b) =>
    b.kind === "text"
      ? b
      : {
          ...b,
          entries:
            b.kind === section
              ? b.entries.filter((e) => !supersedes({ text, source: item.source }, e))
              : [...b.entries],
        },
  )
  const same = blocks
    .flatMap((b) => (b.kind === "text" ? [] : b.entries.map((e, i) => ({ b, e, i }))))
    .find(({ e }) => normal(e.text) === normal(text))
  if (same) {
    const { raw, ...entry } = same.e
    same.b.entries[same.i] = {
      ...entry,
      count: entry.count + 1,
      date: item.date,
      source: raw === undefined ? entry.source : item.source,
    }
  } else {
    const target = blocks.find((b) => b.kind === section)
    if (target && target.kind !== "text") target.entries.push({ date: item.date, source: item.source, count: 1, text })
  }
  return prune({ blocks }, maxEntries)
}

/**
 * A newer entry supersedes an older one about the same thing: the same check failing on the same
 * files (a lesson), or a note from the same source naming exactly the same files — the newer one is
 * what holds now (seed 001). Hand-written lines are never superseded.
 */
export function supersedes(newer: { text: string; source: string }, older: MemoryEntry): boolean {
  if (older.raw !== undefined || older.source !== newer.source || normal(older.text) === normal(newer.text))
    return false
  const subject = (text: string) => {
    const lesson = lessonParts(text)
    const files = [...new Set(mentionedFiles(lesson ? lesson.files.split(", ").join(" ") : text))].sort().join(" ")
    return files && `${lesson?.check ?? ""}|${files}`
  }
  const about = subject(newer.text)
  return about !== "" && about === subject(older.text)
}

/** Working memory beyond `maxEntries` loses its oldest dated entries (hand-written lines stay). */
export function prune(memory: MemoryFile, maxEntries: number): MemoryFile {
  const working = entries(memory, "working")
  const dated = working.filter((e) => e.raw === undefined)
  if (dated.length <= maxEntries) return memory
  // Newest first; of the same day, the one written later.
  const byAge = dated
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (b.e.date ?? "").localeCompare(a.e.date ?? "") || b.i - a.i)
  const keep = new Set(byAge.slice(0, maxEntries).map(({ e }) => e))
  return {
    blocks: memory.blocks.map((b) =>
      b.kind === "working" ? { ...b, entries: b.entries.filter((e) => e.raw !== undefined || keep.has(e)) } : b,
    ),
  }
}

/** Empties the working memory; priority entries and the manual section stay. */
export function clearWorking(memory: MemoryFile): MemoryFile {
  return { blocks: memory.blocks.map((b) => (b.kind === "working" ? { ...b, entries: [] } : b)) }
}

export interface Forgetting {
  memory: MemoryFile
  /** The entries taken out (none when `text` matched none, or the start of several). */
  removed: MemoryEntry[]
  /** When nothing was removed: the entries `text` is part of (two or more — it says which it means). */
  candidates: MemoryEntry[]
}

/**
 * Forgets the entries (priority, working or staging; the Manual section is never touched) whose
 * text is `text` — or, when none is, the one entry whose text contains it. Part of several: nothing.
 */
export function forget(memory: MemoryFile, text: string): Forgetting {
  const wanted = normal(text)
  const all = memory.blocks.flatMap((b) => (b.kind === "text" ? [] : b.entries))
  if (wanted === "") return { memory, removed: [], candidates: [] }
  const exact = all.filter((e) => normal(e.text) === wanted)
  const containing = all.filter((e) => normal(e.text).includes(wanted))
  const removed = exact.length > 0 ? exact : containing.length === 1 ? containing : []
  if (removed.length === 0) return { memory, removed, candidates: containing }
  const gone = new Set(removed)
  return {
    memory: {
      blocks: memory.blocks.map((b) =>
        b.kind === "text" ? b : { ...b, entries: b.entries.filter((e) => !gone.has(e)) },
      ),
    },
    removed,
    candidates: [],
  }
}
