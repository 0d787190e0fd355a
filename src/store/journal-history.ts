// The journals of a project read back, read-only, for the iteration history (ralph-loop status,
// the HTML report): the rotated ones oldest first, then journal.jsonl. Unlike Journal.read it never
// writes (a torn last line — an append under way in the running OpenCode — is just skipped), and a
// line that is not a journal entry is left out.
import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { journalEntrySchema, type JournalEntry } from "./loop-schema.js"

export async function readJournals(stateDir: string): Promise<JournalEntry[]> {
  const names = await readdir(stateDir).catch(() => [] as string[])
  const files = [...rotatedInOrder(names), ...(names.includes("journal.jsonl") ? ["journal.jsonl"] : [])]
  const texts = await Promise.all(files.map((name) => readFile(join(stateDir, name), "utf8").catch(() => "")))
  const entries: JournalEntry[] = []
  for (const text of texts) for (const line of text.split("\n")) {
    if (!line) continue
    const entry = parseLine(line)
    if (entry) entries.push(entry)
  }
  return entries
}

/** journal-<time>.jsonl and journal-<time>-<n>.jsonl (a second rotation in the same millisecond), oldest first. */
function rotatedInOrder(names: readonly string[]): string[] {
  const rotated = names.flatMap((name) => {
    const match = /^journal-(.+?)(?:-(\d+))?\.jsonl$/.exec(name)
    return match ? [{ name, stamp: match[1] as string, n: Number(match[2] ?? 0) }] : []
  })
  return rotated.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.n - b.n)).map((r) => r.name)
}

function parseLine(line: string): JournalEntry | undefined {
  try {
    const parsed = journalEntrySchema.safeParse(JSON.parse(line))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}
