// Seed 001's staging: what the model asks a loop to remember (`<remember>`) is staged under
// `## Staging`, tagged with the loop, and becomes project memory only when the loop completes — its
// checks passed. A loop that ends otherwise leaves its notes there marked unverified: kept for a
// person to read, given to no loop. Pure.
import { remember, type MemoryEntry, type MemoryFile, type MemorySection } from "./memory-file.js"

const staged = (loopID: string) => new RegExp(`^staged ${loopID.replace(/[^\w]/g, "\\$&")}( priority)?$`)

/** The source a staged entry carries: `staged <loop>` (`… priority` for a priority note). */
export const stagedSource = (loopID: string, section: Exclude<MemorySection, "staging">) =>
  `staged ${loopID}${section === "priority" ? " priority" : ""}`

/** The loop's staged notes move to Priority or Working memory, as the model asked. */
export function promoteStaged(memory: MemoryFile, loopID: string, date: string, maxEntries: number): MemoryFile {
  const mine = (e: MemoryEntry) => staged(loopID).test(e.source)
  const notes = memory.blocks.flatMap((b) => (b.kind === "staging" ? b.entries.filter(mine) : []))
  if (notes.length === 0) return memory
  const rest: MemoryFile = {
    blocks: memory.blocks.map((b) => (b.kind === "staging" ? { ...b, entries: b.entries.filter((e) => !mine(e)) } : b)),
  }
  return notes.reduce(
    (m, e) =>
      remember(
        m,
        e.source.endsWith(" priority") ? "priority" : "working",
        { text: e.text, source: "remember", date },
        maxEntries,
      ),
    rest,
  )
}

/** The loop's staged notes stay where they are, marked unverified. */
export function markUnverified(memory: MemoryFile, loopID: string): MemoryFile {
  const pattern = staged(loopID)
  return {
    blocks: memory.blocks.map((b) =>
      b.kind === "staging"
        ? {
            ...b,
            entries: b.entries.map((e) =>
              pattern.test(e.source) ? { ...e, source: e.source.replace(/^staged/, "unverified") } : e,
            ),
          }
        : b,
    ),
  }
}

/** A loop ended: its staged notes become memory if it completed, and stay marked unverified if not. */
export const settleStaged = (
  memory: MemoryFile,
  loopID: string,
  completed: boolean,
  date: string,
  maxEntries: number,
): MemoryFile => (completed ? promoteStaged(memory, loopID, date, maxEntries) : markUnverified(memory, loopID))
