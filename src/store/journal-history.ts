// The decided iterations in a project's journals, read back read-only for the iteration history
// (ralph-loop status, the HTML report): the rotated journals oldest first, then journal.jsonl.
// Unlike Journal.read it never writes (a torn last line — an append under way in the running
// OpenCode — is just skipped), and it reads only what a history needs of the decided lines: with
// 1,000 loops in a 5 MB journal, checking every line against the whole schema took 130 ms.
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { z } from "zod"
import { iterationRecordSchema, journalEntrySchema } from "./loop-schema.js"
import { readRegularFile } from "../files/regular-file.js"

const entry = journalEntrySchema.shape

/** What the history reads of a journal line for a decided turn. */
export const decidedLineSchema = z.object({
  at: entry.at,
  event: z.literal("decided"),
  loop: z.object({ id: z.string(), startedAt: z.number(), iteration: z.int().min(1) }),
  record: iterationRecordSchema,
  plan: z.object({ done: z.array(z.unknown()) }).optional(),
})
export type DecidedLine = z.infer<typeof decidedLineSchema>

/** The journal writes `"event"` right after `"at"`: lines of other events are not parsed at all. */
const DECIDED = '"event":"decided"'

export async function readDecidedLines(stateDir: string): Promise<DecidedLine[]> {
  const names = await readdir(stateDir).catch(() => [] as string[])
  const files = [...rotatedInOrder(names), ...(names.includes("journal.jsonl") ? ["journal.jsonl"] : [])]
  // A journal that is not a regular file (a FIFO would never end) is no history.
  const texts = await Promise.all(
    files.map((name) => readRegularFile(join(stateDir, name)).then((read) => (read.ok ? read.text : ""))),
  )
  const lines: DecidedLine[] = []
  for (const text of texts)
    for (const line of text.split("\n")) {
      if (!line.includes(DECIDED)) continue
      const decided = parseLine(line)
      if (decided) lines.push(decided)
    }
  return lines
}

/** journal-<time>.jsonl and journal-<time>-<n>.jsonl (a second rotation in the same millisecond), oldest first. */
function rotatedInOrder(names: readonly string[]): string[] {
  const rotated = names.flatMap((name) => {
    const match = /^journal-(.+?)(?:-(\d+))?\.jsonl$/.exec(name)
    return match ? [{ name, stamp: match[1] as string, n: Number(match[2] ?? 0) }] : []
  })
  return rotated.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.n - b.n)).map((r) => r.name)
}

function parseLine(line: string): DecidedLine | undefined {
  try {
    const parsed = decidedLineSchema.safeParse(JSON.parse(line))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}
