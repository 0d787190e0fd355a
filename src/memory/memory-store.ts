// memory.md on disk: read tolerantly, written atomically, one change at a time — also across the
// plugin instances of the process (a worktree loop's instance writes the project's memory.md too,
// src/worktrees/shared-files.ts). A file that is not a memory file at all is moved aside (memory.md.broken-<time>) with
// one message, and a new
// one is started — a loop never stops over it.
import { readFile, rename } from "node:fs/promises"
import { join } from "node:path"
import { MEMORY_FILE } from "../project/own-files.js"
import { writeFileAtomic } from "../files/atomic.js"
import { inFileQueue } from "../files/file-queue.js"
import { BrokenMemoryError, emptyMemory, parseMemory, serializeMemory, type MemoryFile } from "./memory-file.js"

export { MEMORY_FILE }

export type MemoryProblem = (message: string) => void

/** What the plugin's hooks and jobs need of the memory on disk. */
export interface ProjectMemory {
  read(): Promise<MemoryFile>
  update(change: (memory: MemoryFile) => MemoryFile): Promise<MemoryFile>
}

export class MemoryStore implements ProjectMemory {
  readonly file: string

  constructor(
    private readonly directory: string,
    private readonly problem: MemoryProblem,
    private readonly now: () => number = Date.now,
  ) {
    this.file = join(directory, MEMORY_FILE)
  }

  /** The memory as it is on disk now (empty when there is none). */
  read(): Promise<MemoryFile> {
    return this.serially(() => this.load())
  }

  /** Applies `change` to the memory on disk and writes it back if it changed. */
  update(change: (memory: MemoryFile) => MemoryFile): Promise<MemoryFile> {
    return this.serially(async () => {
      const before = await this.load()
      const after = change(before)
      const text = serializeMemory(after)
      if (text !== serializeMemory(before)) await writeFileAtomic(this.file, text, this.directory)
      return after
    })
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    return inFileQueue(this.file, work)
  }

  private async load(): Promise<MemoryFile> {
    const text = await readFile(this.file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined
      throw error
    })
    if (text === undefined) return emptyMemory()
    try {
      return parseMemory(text)
    } catch (error) {
      if (!(error instanceof BrokenMemoryError)) throw error
      const aside = `${this.file}.broken-${new Date(this.now()).toISOString().replace(/[:.]/g, "-")}`
      await rename(this.file, aside)
      this.problem(
        `${MEMORY_FILE} ${error.message}; moved aside to ${aside.slice(this.directory.length + 1)} and a new ` +
          `memory file is started`,
      )
      return emptyMemory()
    }
  }
}
