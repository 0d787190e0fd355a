// The loops whose state file is damaged, as the journal knows them: OpenCode rebuilds such a loop
// from its last journal line at its next start (src/store/loop-store.ts), so the session folders that
// line names are still in use. Read-only: the journal is never truncated or rewritten here (an
// OpenCode open on the project may be appending to it). Never throws.
import { basename, join } from "node:path"
import { readRegularFile } from "../files/regular-file.js"
import { fileSafeID } from "../host/session-id.js"
import type { Loop } from "../loop/loop.js"
import { STATE_DIR } from "../project/own-files.js"
import { journalEntrySchema } from "../store/loop-schema.js"

/** What names a loop's session folders. */
export type LoopSessions = Pick<Loop, "id" | "lineage" | "sessionID"> & {
  settings: Pick<Loop["settings"], "summaryPath">
}

/** The journal lines' loops (their last line each) whose state file is one of `files`. */
export async function damagedLoopsSessions(project: string, files: readonly string[]): Promise<LoopSessions[]> {
  if (files.length === 0) return []
  const names = new Set(files.map((file) => basename(file)))
  const read = await readRegularFile(join(project, STATE_DIR, "journal.jsonl"))
  if (!read.ok) return []
  const last = new Map<string, LoopSessions>()
  for (const line of read.text.split("\n")) {
    if (!line.trim()) continue
    let data: unknown
    try {
      data = JSON.parse(line)
    } catch {
      continue // a torn or foreign line
    }
    const entry = journalEntrySchema.safeParse(data)
    if (!entry.success) continue
    const { loop } = entry.data
    if (names.has(`${fileSafeID(loop.id)}.json`) || names.has(`${loop.id}.json`)) last.set(loop.id, loop)
  }
  return [...last.values()]
}
