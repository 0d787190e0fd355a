// The journal, .opencode/ralph-loop/journal.jsonl: one line per change of every loop (seed 001's
// progress journal; a decision carries its iteration record), rotated past a size — only the
// newest journal is read, to rebuild a loop whose state file is damaged.
import { appendFile, copyFile, lstat, readdir, readFile, rm, truncate } from "node:fs/promises"
import { appendFileSync } from "node:fs"
import { join } from "node:path"
import { totalUsage, type Loop } from "../loop/loop.js"
import { withoutWebhook } from "../files/redact.js"
import type { Faults } from "../host/faults.js"
import { OutsideProjectError, writeFileAtomic } from "../files/atomic.js"
import { journalEntrySchema, type JournalEntry } from "./loop-schema.js"
import type { StoreProblem } from "./loop-store.js"
import { readRegularFile } from "../files/regular-file.js"
import { findingText } from "../evidence/finding.js"

export interface JournalLimits {
  /** journal.jsonl is rotated to journal-<time>.jsonl when an append would take it past this size. */
  maxBytes: number
  /** Rotated journals kept; older ones are deleted. */
  kept: number
}

/** About 250 iterations per journal (~4 KB each); at most 5 MB of journals in all. */
export const JOURNAL_LIMITS: JournalLimits = { maxBytes: 1024 * 1024, kept: 4 }

/**
 * A journal line names the loop's newest earlier sessions only: with all of them, a line grew with
 * the loop (9 KB at iteration 300 of a recreate loop, five lines an iteration). A loop rebuilt from
 * the journal knows these; its state file keeps them all.
 */
export const JOURNAL_LINEAGE = 20

const JOURNAL = "journal.jsonl"
const isRotatedJournal = (name: string): boolean => /^journal-.+\.jsonl$/.test(name)

/** The journal's line for a decided iteration (seed 001's progress journal). */
function iterationRecord(loop: Loop, now: number): NonNullable<JournalEntry["record"]> {
  const usage = totalUsage(loop)
  const last = loop.snapshots.at(-1)
  return {
    ...(loop.lastDecision ? { decision: loop.lastDecision } : {}),
    tokens: usage.tokens,
    cost: usage.cost,
    durationMs: Math.max(0, now - loop.iterationStartedAt),
    ...(last && last.iteration === loop.iteration
      ? {
          checks: {
            errors: last.errors,
            warnings: last.warnings,
            securityIssues: last.securityIssues,
            testsFailed: last.testsFailed,
            testsRun: last.testsRun,
          },
          failing: last.checks.filter((c) => c.status !== "passed").map((c) => c.name),
        }
      : {}),
    // What the struggle signal reads (src/status/struggle.ts): progress as the breaker counts it, and a claim not
    // accepted.
    breaker: { state: loop.breaker.state, noProgress: loop.breaker.noProgress, sameError: loop.breaker.sameError },
    // Said for every decided turn that measured it — the completing one too, which leaves the breaker as it was.
    ...(loop.lastProgress !== undefined ? { progress: loop.lastProgress } : {}),
    claimed: loop.completionStreak > 0,
    ...(loop.guard?.iteration === loop.iteration && loop.guard.findings.length > 0
      ? { weakened: loop.guard.findings.map((f) => `${f.accepted ? "accepted: " : ""}${findingText(f)}`) }
      : {}),
  }
}

/** The lines whose detail says what happened: a pause's reason, a rollback's checkpoint. */
const DETAILED = new Set(["paused", "rolled-back"])

function journalEntry(loop: Loop, event: string, now: number): JournalEntry {
  return {
    at: new Date(now).toISOString(),
    event,
    loop: {
      // A loop of an older version may still hold the webhook: never written (it is a secret).
      id: loop.id,
      task: loop.task,
      settings: withoutWebhook(loop.settings),
      startedAt: loop.startedAt,
      sessionID: loop.sessionID,
      lineage: loop.lineage.slice(-JOURNAL_LINEAGE),
      iteration: loop.iteration,
      retries: loop.retries,
      phase: loop.phase,
      ...(loop.stopReason ? { stopReason: loop.stopReason } : {}),
      // Why and how it paused, as it was at this line: a follower that reads the line late (the state
      // file has moved on: rolled back, resumed) still knows what this pause was.
      ...(loop.phase === "paused" && loop.pauseCause ? { pauseCause: loop.pauseCause } : {}),
      ...(loop.detail && DETAILED.has(event) ? { detail: loop.detail } : {}),
    },
    ...(event === "decided" ? { record: iterationRecord(loop, now) } : {}),
    ...(loop.plan && (event === "started" || event === "decided") ? { plan: loop.plan } : {}),
    ...(event === "accepted" && loop.accepted ? { accepted: loop.accepted } : {}),
    ...(event === "accept-refused" && loop.refusedAccepts?.length ? { refusedAccept: loop.refusedAccepts.at(-1) } : {}),
  }
}

/** The journal's line for a change of `loop`. */
export const journalLine = (loop: Loop, event: string, now: number): string =>
  `${JSON.stringify(journalEntry(loop, event, now))}\n`

export class Journal {
  private writes: Promise<void> = Promise.resolve()

  constructor(
    private readonly dir: string,
    private readonly directory: string,
    private readonly limits: JournalLimits,
    private readonly faults?: Faults,
  ) {}

  /** Appends lines (one change each), one append or rotation at a time whichever loop they are for. */
  append(lines: string, now: number): Promise<void> {
    const next = this.writes.then(() => this.appendNow(lines, now))
    this.writes = next.catch(() => undefined)
    return next
  }

  /**
   * Appends to the journal — never through a symlink (Bun ignores O_NOFOLLOW, so it is looked at
   * first) — rotating it first when the lines would take it past its size.
   */
  private async appendNow(lines: string, now: number): Promise<void> {
    const journal = join(this.dir, JOURNAL)
    const stat = await lstat(journal).catch(() => undefined)
    if (stat?.isSymbolicLink()) throw new OutsideProjectError(`refusing to append to ${journal}: it is a symlink`)
    // Opening a FIFO to write waits for a reader forever (and every later save behind it).
    if (stat && !stat.isFile()) throw new Error(`refusing to append to ${journal}: it is not a regular file`)
    if (stat && stat.size > 0 && stat.size + Buffer.byteLength(lines) > this.limits.maxBytes)
      await this.rotate(journal, now)
    this.faults?.pointWithin("journal.mid-append", () => appendFileSync(journal, lines.slice(0, lines.length >> 1)))
    await appendFile(journal, lines)
  }

  /**
   * journal.jsonl becomes journal-<time>.jsonl, and the new journal starts with the last line of
   * each loop not yet ended, so that a damaged state file can still be rebuilt from the newest
   * journal alone. Copied first, then replaced atomically: a crash in between leaves the whole
   * journal in place (and a copy), never a journal without those lines.
   */
  private async rotate(journal: string, now: number): Promise<void> {
    const text = await readFile(journal, "utf8")
    const stamp = new Date(now).toISOString().replace(/[:.]/g, "-")
    const names = await readdir(this.dir)
    let target = `journal-${stamp}.jsonl`
    for (let n = 1; names.includes(target); n += 1) target = `journal-${stamp}-${n}.jsonl`
    await copyFile(journal, join(this.dir, target))
    await writeFileAtomic(journal, linesOfOpenLoops(text), this.directory)
    const rotated = [...names.filter(isRotatedJournal), target].sort()
    for (const old of rotated.slice(0, Math.max(0, rotated.length - this.limits.kept)))
      await rm(join(this.dir, old), { force: true })
  }

  /** The entries of the newest journal (a torn last line is dropped; unreadable lines are reported). */
  async read(problems: StoreProblem[]): Promise<JournalEntry[]> {
    const file = join(this.dir, JOURNAL)
    // Only a regular file is read: a FIFO would be waited on forever.
    const read = await readRegularFile(file)
    if (!read.ok && read.reason !== "missing") problems.push({ file, message: `${read.message} (not read)` })
    let text = read.ok ? read.text : ""
    // A line a crash cut off mid-append was never written in full: dropped, so the next append
    // starts a line of its own instead of joining it (and the journal stays readable).
    if (text && !text.endsWith("\n")) {
      const complete = text.lastIndexOf("\n") + 1
      await truncate(file, Buffer.byteLength(text.slice(0, complete))).catch(() => undefined)
      text = text.slice(0, complete)
    }
    const entries: JournalEntry[] = []
    let bad = 0
    for (const line of text.split("\n")) {
      if (!line.trim()) continue
      try {
        const entry = journalEntrySchema.safeParse(JSON.parse(line))
        if (entry.success) entries.push(entry.data)
        else bad += 1
      } catch {
        bad += 1
      }
    }
    if (bad > 0) problems.push({ file, message: `has ${bad} unreadable line${bad === 1 ? "" : "s"} (skipped)` })
    return entries
  }
}

/**
 * The last journal line of each loop whose last line does not say it has ended, in journal order —
 * preceded, for a plan loop, by its last line that carries the plan (its place in the plan).
 */
function linesOfOpenLoops(text: string): string {
  const last = new Map<string, { index: number; line: string; ended: boolean; plan?: string }>()
  text.split("\n").forEach((line, index) => {
    try {
      const entry = JSON.parse(line) as { loop?: { id?: unknown; phase?: unknown }; plan?: unknown }
      if (typeof entry.loop?.id !== "string") return
      const plan = entry.plan !== undefined ? line : last.get(entry.loop.id)?.plan
      last.set(entry.loop.id, {
        index,
        line,
        ended: entry.loop.phase === "stopped",
        ...(plan !== undefined ? { plan } : {}),
      })
    } catch {
      // a torn or foreign line: nothing to carry
    }
  })
  const open = [...last.values()].filter((l) => !l.ended).sort((a, b) => a.index - b.index)
  return open.map((l) => `${l.plan !== undefined && l.plan !== l.line ? `${l.plan}\n` : ""}${l.line}\n`).join("")
}
