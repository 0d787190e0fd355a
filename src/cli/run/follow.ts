// Following one loop from its files: the lines the plugin appends to the journal for it, and its
// state file. Files, not the event stream: they are what the plugin writes before it acts (a
// prompt waits for them), they outlive a server that dies, and they are the same whether the
// runner started the server or attached to one. Read-only.
import { existsSync } from "node:fs"
import { open, readdir, stat } from "node:fs/promises"
import { join } from "node:path"
import type { Loop } from "../../loop/loop.js"
import { STATE_DIR } from "../../project/own-files.js"
import { reportFile } from "../../store/report.js"
import { histories, historyOf } from "../../status/history.js"
import { readDecidedLines } from "../../store/journal-history.js"
import { journalEntrySchema, type JournalEntry } from "../../store/loop-schema.js"
import { LoopStore } from "../../store/loop-store.js"
import { parseSavedLoop, type SavedLoop } from "../../store/saved-loops.js"
import { readRegularFile } from "../../files/regular-file.js"

const JOURNAL = "journal.jsonl"

/**
 * The lines appended to a project's journal from a point on. A rotation (journal.jsonl copied to
 * journal-<time>.jsonl and replaced) is noticed by the file's identity or size: the rest of the old
 * journal is read from its copy, then the new one from its start (it repeats the open loops' last
 * lines; the translation skips lines it has seen).
 */
export class JournalTail {
  private constructor(
    private readonly dir: string,
    private offset: number,
    private ino: number | undefined,
  ) {}

  /** A tail from the journal's end now: only what is appended from here on. */
  static async fromEnd(project: string): Promise<JournalTail> {
    const dir = join(project, STATE_DIR)
    const info = await stat(join(dir, JOURNAL)).catch(() => undefined)
    return new JournalTail(dir, info?.size ?? 0, info?.ino)
  }

  async read(): Promise<JournalEntry[]> {
    const file = join(this.dir, JOURNAL)
    const info = await stat(file).catch(() => undefined)
    if (!info) return []
    const texts: string[] = []
    if ((this.ino !== undefined && info.ino !== this.ino) || info.size < this.offset) {
      const rotated = await this.newestRotated()
      if (rotated) texts.push(await this.readFrom(rotated, this.offset, true))
      this.offset = 0
    }
    this.ino = info.ino
    texts.push(await this.readFrom(file, this.offset, false))
    return texts.flatMap(parseLines)
  }

  /** The complete lines of `file` from `from` on; the offset moves past them (not for a rotated copy). */
  private async readFrom(file: string, from: number, copy: boolean): Promise<string> {
    const handle = await open(file, "r").catch(() => undefined)
    if (!handle) return ""
    try {
      const { size } = await handle.stat()
      if (size <= from) return ""
      const buffer = Buffer.alloc(size - from)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, from)
      const text = buffer.subarray(0, bytesRead).toString("utf8")
      // A line still being appended is read at the next look.
      const complete = text.lastIndexOf("\n") + 1
      if (!copy) this.offset = from + Buffer.byteLength(text.slice(0, complete))
      return text.slice(0, complete)
    } finally {
      await handle.close()
    }
  }

  private async newestRotated(): Promise<string | undefined> {
    const names = await readdir(this.dir).catch(() => [] as string[])
    const rotated = names.filter((n) => /^journal-.+\.jsonl$/.test(n)).sort()
    const newest = rotated.at(-1)
    return newest ? join(this.dir, newest) : undefined
  }
}

function parseLines(text: string): JournalEntry[] {
  const entries: JournalEntry[] = []
  for (const line of text.split("\n")) {
    if (!line.trim()) continue
    try {
      const parsed = journalEntrySchema.safeParse(JSON.parse(line))
      if (parsed.success) entries.push(parsed.data)
    } catch {
      // not a line of ours
    }
  }
  return entries
}

/** The loop's state file now; undefined while it is missing or mid-replace. */
export async function readLoopState(project: string, loopID: string): Promise<SavedLoop | undefined> {
  const read = await readRegularFile(new LoopStore(project).fileOf(loopID))
  return read.ok ? parseSavedLoop(read.text) : undefined
}

/**
 * The state file as of a journal line written at `at`: the plugin writes the two side by side, so
 * the file may lag its line a moment — then it is read again, briefly (about a second). What it
 * adds is the why of a wait or a pause, never what ends the run: after that, the newest read.
 */
export async function stateAsOf(
  read: () => Promise<SavedLoop | undefined>,
  at: number,
  tries = 20,
  pauseMs = 50,
): Promise<SavedLoop | undefined> {
  let saved = await read()
  for (let n = 0; n < tries && (!saved || saved.savedAt < at); n += 1) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs))
    saved = (await read()) ?? saved
  }
  return saved
}

/**
 * What a loop had used by its last decided iteration, as its journal lines say: where the first
 * iteration a resumed run sees counts its own tokens and cost from (the lines carry the loop's
 * totals so far).
 */
export async function usageByLastDecision(
  project: string,
  loop: { id: string; startedAt: number },
): Promise<{ tokens: number; cost: number }> {
  const rows = historyOf(histories(await readDecidedLines(join(project, STATE_DIR))), loop)
  return rows.reduce((sum, row) => ({ tokens: sum.tokens + row.tokens, cost: sum.cost + row.cost }), {
    tokens: 0,
    cost: 0,
  })
}

/**
 * The loop's last steps after its end line: its state file saying so (written beside the journal,
 * so it may lag a moment), then — for a stopped loop — its old sessions retired and its report
 * written. Bounded: a slow step costs the report's path in the last line, never the exit.
 */
export async function endSteps(
  project: string,
  loopID: string,
  phase: "stopped" | "paused",
  timeoutMs: number,
  pollMs: number,
): Promise<Loop | undefined> {
  const deadline = Date.now() + timeoutMs
  let last: Loop | undefined
  for (;;) {
    const loop = (await readLoopState(project, loopID))?.loop
    if (loop) last = loop
    const done =
      loop?.phase === phase &&
      (phase === "paused" || (loop.retiring.length === 0 && existsSync(reportFile(project, loop))))
    if (done || Date.now() > deadline) return last
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}
