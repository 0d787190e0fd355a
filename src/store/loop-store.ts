// Loop state on disk, under <project>/.opencode/ralph-loop/: one file per loop
// (loops/<loopID>.json, schema-versioned, validated, written atomically) and an append-only
// journal of every change (journal.ts). A damaged file is moved aside with a timestamp and the loop
// is rebuilt from the journal — or, if even that fails, reported; never a crash, never a silent reset.
import { mkdir, readdir, rename, rm } from "node:fs/promises"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { z } from "zod"
import { FALLBACK_REPLY_CHARS } from "../loop/handoff.js"
import { loopFromState, newLoop, stateOf, type Loop, type LoopState } from "../loop/loop.js"
import { withoutWebhook } from "../files/redact.js"
import type { Faults } from "../host/faults.js"
import { fileSafeID } from "../host/session-id.js"
import { STATE_DIR } from "../project/own-files.js"
import { assertInside, isLeftoverTemp, writeFileAtomic } from "../files/atomic.js"
import { Journal, JOURNAL_LIMITS, journalLine, type JournalLimits } from "./journal.js"
import { persistedLoopSchema, SCHEMA_VERSION, type PersistedLoop } from "./loop-schema.js"
import { readRegularFile } from "../files/regular-file.js"
import { parseStateFile, readNewestLoops, type SavedLoop } from "./saved-loops.js"
import { ignoreOwnFolder } from "../files/ignore-own-folder.js"
import { OrphanScan, OWNER, ownedElsewhere, type LoopOwner } from "./loop-owner.js"

/** @public bench/journal.ts loads JOURNAL_LIMITS from dist/ (knip cannot see that import). */
export { JOURNAL_LIMITS, type JournalLimits }

export interface StoreProblem {
  file: string
  message: string
}

export interface LoadResult {
  loops: Loop[]
  problems: StoreProblem[]
  /** Loops rebuilt from the journal because their file was damaged. */
  rebuilt: string[]
  /** Loops another live OpenCode process runs now: left to it. */
  owned: string[]
  /** Loops whose owner is gone, left to the project's live lease holder, which takes them back at its next beat. */
  leftToHolder?: string[]
}

/**
 * The loop's state as written: of the last turn's text only its end, all a fallback handoff needs
 * after a restart; never the webhook (a secret a loop of an older version may still hold).
 */
function persistable(loop: Loop): LoopState {
  const { lastTurn, ...rest } = stateOf(loop)
  const state = { ...rest, settings: withoutWebhook(rest.settings) }
  if (!lastTurn) return state
  const text = lastTurn.texts.join("\n")
  return {
    ...state,
    lastTurn: {
      ...lastTurn,
      texts: text.length > FALLBACK_REPLY_CHARS ? [text.slice(-FALLBACK_REPLY_CHARS)] : lastTurn.texts,
    },
  }
}

/** The state file's text for `loop`. */
export function stateText(loop: Loop, now: number, owner: LoopOwner = OWNER): string {
  const savedAt = new Date(now).toISOString()
  const persisted: PersistedLoop = { schemaVersion: SCHEMA_VERSION, savedAt, owner, loop: persistable(loop) }
  return `${JSON.stringify(persisted, null, 2)}\n`
}

/** A state file's text back to its loop (throws on invalid JSON or a file that fails the schema). */
export function parseStateText(text: string): { loop: Loop; owner?: LoopOwner | undefined } {
  const data = parseStateFile(text, persistedLoopSchema)
  return { loop: loopFromState(data.loop), owner: data.owner }
}

/** Changes of one loop waiting to be written together. */
interface Batch {
  /**
   * The loop whose file it writes: the newest one of that id (a new /ralph in the same session replaces the old loop).
   */
  loop: Loop
  lines: string[]
  now: number
  done: Promise<void>
}

export class LoopStore {
  readonly dir: string
  private readonly directory: string
  private readonly writes = new Map<string, Promise<void>>()
  private readonly batches = new Map<string, Batch>()
  private readonly journal: Journal
  private loopsFolderChecked = false
  /** What this process last wrote for each loop: anything else on disk was changed by someone else. */
  private readonly written = new Map<string, string>()
  private readonly scan: OrphanScan

  constructor(
    directory: string,
    private readonly faults?: Faults,
    journalLimits: JournalLimits = JOURNAL_LIMITS,
    /** The instance's boot id, written as the loops' owner (src/control/route.ts sends it their requests). */
    private readonly boot?: string,
  ) {
    this.directory = directory
    this.dir = join(directory, STATE_DIR)
    this.journal = new Journal(this.dir, directory, journalLimits, faults)
    this.scan = new OrphanScan(join(this.dir, "loops"), parseStateText)
  }

  fileOf(loopID: string): string {
    return join(this.dir, "loops", `${fileSafeID(loopID)}.json`)
  }

  /**
   * Persists the loop and journals the change. Writes of one loop never overtake each other, and
   * changes made while one is under way (a decision, its restart and the next iteration come
   * together) are written as one: the file once, in its newest state, and their journal lines at once.
   */
  save(loop: Loop, event: string, now: number): Promise<void> {
    const line = journalLine(loop, event, now)
    const open = this.batches.get(loop.id)
    if (open) {
      open.loop = loop
      open.lines.push(line)
      open.now = now
      return open.done
    }
    const batch: Batch = { loop, lines: [line], now, done: Promise.resolve() }
    this.batches.set(loop.id, batch)
    const previous = this.writes.get(loop.id) ?? Promise.resolve()
    const next = previous.then(async () => {
      // From here on a change starts the next batch; this one writes the loop as it is now.
      this.batches.delete(loop.id)
      const text = stateText(batch.loop, batch.now, this.boot === undefined ? OWNER : { ...OWNER, boot: this.boot })
      await this.ensureDir()
      // The file and the journal, side by side; both settle before one's failure is told (none writes after it).
      const writes = await Promise.allSettled([
        this.writeState(loop.id, text),
        this.journal.append(batch.lines.join(""), batch.now),
      ])
      for (const write of writes) if (write.status === "rejected") throw write.reason
    })
    batch.done = next
    const settled = next.catch(() => undefined)
    this.writes.set(loop.id, settled)
    void settled.then(() => {
      if (this.writes.get(loop.id) !== settled) return
      this.writes.delete(loop.id)
      // An ended loop's last state is on disk: nothing of it stays in memory.
      if (batch.loop.phase === "stopped") this.written.delete(loop.id)
    })
    return next
  }

  /**
   * The state file, atomically. Where the loops folder leads is checked at the first write of this
   * process (a symlink out of the project is refused); each prompt waits for this write, so later
   * ones are two file calls, not eight.
   */
  private async writeState(loopID: string, text: string): Promise<void> {
    const root = this.loopsFolderChecked ? undefined : this.directory
    await writeFileAtomic(this.fileOf(loopID), text, root, () => this.faults?.point("state.mid-write"))
    this.loopsFolderChecked = true
    this.written.set(loopID, text)
  }

  /** What this store holds in memory, by loop: for RALPH_LOOP_DEBUG's gauges (a leak shows as growth). */
  held(): { writes: number; batches: number; states: number } {
    return { writes: this.writes.size, batches: this.batches.size, states: this.written.size }
  }

  /** Waits for every pending write (tests, dispose). */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()])
  }

  /** The `limit` newest loops on disk, ended ones included, once every change made so far is written (never throws). */
  async newest(limit: number): Promise<SavedLoop[]> {
    await this.flush()
    return readNewestLoops(join(this.dir, "loops"), limit)
  }

  /** Waits until what the loop's state was changed to so far is on disk (or failed to get there). */
  async settled(loopID: string): Promise<void> {
    await this.writes.get(loopID)
  }

  /**
   * Seed 002's file protection, run every iteration: the file must still be what this process
   * wrote. A missing, broken or hand-edited file is moved aside and rewritten from memory.
   */
  async verify(loop: Loop, now: number): Promise<StoreProblem | undefined> {
    const expected = this.written.get(loop.id)
    if (expected === undefined) return undefined
    await this.writes.get(loop.id)
    const file = this.fileOf(loop.id)
    const actual = await readRegularFile(file).then((read) => (read.ok ? read.text : undefined))
    if (actual === this.written.get(loop.id)) return undefined
    const moved = actual === undefined ? undefined : await this.moveAside(file, now)
    await this.save(loop, "restored", now)
    return {
      file,
      message:
        actual === undefined
          ? "was missing; rewritten from the running loop"
          : `was changed outside the plugin; moved aside to ${moved} and rewritten from the running loop`,
    }
  }

  /** The live loops on disk whose owner is gone, that `running` does not name: taken back at a heartbeat. */
  async orphans(now: number, running: (id: string) => boolean): Promise<Loop[]> {
    const elsewhere = await ownedElsewhere(this.directory, now, this.boot)
    const found = await this.scan.orphans(elsewhere, running)
    for (const { loop, text } of found) this.written.set(loop.id, text)
    return found.map((f) => f.loop)
  }

  /** The loops on disk but another live process's; `leaveOrphans`: those whose owner is gone are left out too. */
  async load(now: number, leaveOrphans = false): Promise<LoadResult> {
    const result: LoadResult = { loops: [], problems: [], rebuilt: [], owned: [], leftToHolder: [] }
    const elsewhere = await ownedElsewhere(this.directory, now, this.boot)
    const dir = join(this.dir, "loops")
    const names = await readdir(dir).catch(() => [] as string[])
    // A write that a crash cut off between its temp file and the rename: the old file is intact.
    for (const name of names.filter(isLeftoverTemp)) await rm(join(dir, name), { force: true })
    const journal = await this.journal.read(result.problems)
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      const file = join(dir, name)
      // Never a FIFO or a link: one would hang the start-up, the other lead outside.
      const parsed = await readRegularFile(file)
        .then((read) =>
          read.ok ? { text: read.text, ...parseStateText(read.text) } : { error: new Error(`it ${read.message}`) },
        )
        .catch((error: unknown) => ({ error }))
      if ("loop" in parsed && elsewhere(parsed.owner)) {
        result.owned.push(parsed.loop.id)
        continue
      }
      if ("loop" in parsed && leaveOrphans && parsed.loop.phase !== "stopped") {
        result.leftToHolder?.push(parsed.loop.id)
        continue
      }
      if ("loop" in parsed) {
        result.loops.push(parsed.loop)
        // Only a loop that goes on is verified against its file; an ended one is not kept in memory.
        if (parsed.loop.phase !== "stopped") this.written.set(parsed.loop.id, parsed.text)
        continue
      }
      const moved = await this.moveAside(file, now)
      const id = name.replace(/\.json$/, "")
      const last = [...journal].reverse().find((entry) => entry.loop.id === id || this.fileOf(entry.loop.id) === file)
      if (!last) {
        result.problems.push({
          file,
          message:
            `is damaged (${describe(parsed.error)}); moved aside to ${moved}; the journal has nothing to ` +
            `rebuild it from, so the loop is not resumed`,
        })
        continue
      }
      const plan = [...journal].reverse().find((entry) => entry.loop.id === last.loop.id && entry.plan)?.plan
      const loop: Loop = {
        ...newLoop(last.loop.id, last.loop.task, last.loop.settings, last.loop.startedAt),
        ...last.loop,
        ...(plan ? { plan } : {}),
      }
      result.loops.push(loop)
      result.rebuilt.push(loop.id)
      result.problems.push({
        file,
        message:
          `is damaged (${describe(parsed.error)}); moved aside to ${moved}; rebuilt from the journal at ` +
          `iteration ${loop.iteration} (breaker and call counts start fresh)`,
      })
      await this.save(loop, "rebuilt", now)
    }
    return result
  }

  private async moveAside(file: string, now: number): Promise<string> {
    const target = `${file}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, "-")}`
    await rename(file, target).catch(() => undefined)
    return target
  }

  private async ensureDir(): Promise<void> {
    if (existsSync(join(this.dir, "loops"))) return
    await assertInside(this.directory, join(this.dir, "loops"))
    await mkdir(join(this.dir, "loops"), { recursive: true })
    await ignoreOwnFolder(this.directory)
  }
}

function describe(error: unknown): string {
  if (error instanceof z.ZodError)
    return error.issues
      .map((i) => `${i.path.join(".") || "file"}: ${i.message}`)
      .slice(0, 3)
      .join("; ")
  if (error instanceof Error) return error.message
  return String(error)
}
