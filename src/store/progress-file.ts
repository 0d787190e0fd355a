// The progress log on disk: `.opencode/ralph-loop/progress.md`, appended to one entry at a time
// (appends of the loops of one project never overlap, also from the instances of its worktrees:
// src/worktrees/shared-files.ts), written atomically; the oldest entries move
// to `progress-<date>.md` when it grows beyond PROGRESS_MAX_CHARS.
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { renderEntry, type ProgressEntry } from "./progress-entry.js"
import { appendEntry, renderRotated } from "./progress-log.js"
import { writeFileAtomic } from "../files/atomic.js"
import { inFileQueue } from "../files/file-queue.js"
import { STATE_DIR } from "./loop-store.js"

export const PROGRESS_FILE = `${STATE_DIR}/progress.md`

export class ProgressFile {
  constructor(private readonly directory: string) {}

  /** The log, once the appends asked for before this read are on disk. */
  read(): Promise<string | undefined> {
    return inFileQueue(this.file, () => this.readNow())
  }

  /**
   * Appends the entry of a decided iteration (after the appends asked for before it). The append is
   * in the queue when this returns, so a read asked right after it sees the entry.
   */
  append(entry: ProgressEntry): Promise<void> {
    return inFileQueue(this.file, () => this.write(entry))
  }

  private get file(): string {
    return join(this.directory, PROGRESS_FILE)
  }

  private readNow(): Promise<string | undefined> {
    return readFile(this.file, "utf8").catch(() => undefined)
  }

  private async write(entry: ProgressEntry): Promise<void> {
    const { text, rotated } = appendEntry((await this.readNow()) ?? "", renderEntry(entry), entry.learnings)
    if (rotated.length > 0) {
      const date = new Date(entry.at).toISOString().slice(0, 10)
      const file = join(this.directory, STATE_DIR, `progress-${date}.md`)
      const existing = await readFile(file, "utf8").catch(() => undefined)
      await writeFileAtomic(file, renderRotated(existing, rotated, date), this.directory)
    }
    await writeFileAtomic(this.file, text, this.directory)
  }
}
