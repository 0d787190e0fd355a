// What of the memory a loop is given (hydration): every priority entry, then the working entries
// that share the most terms with the loop's task and the files it touches — plain term overlap,
// a file path named in an entry counting most — within a character budget. An entry that shares
// nothing with the loop is not given, however much room is left.
import { mentionedFiles } from "../checks/findings.js"
import { MEMORY_FILE } from "../project/own-files.js"
import type { MemoryEntry, MemoryFile } from "./memory-file.js"
import { entries } from "./memory-file.js"

export interface Hydration {
  priority: string[]
  relevant: string[]
  /** Entries left out for the budget (priority ones included). */
  omitted: number
}

// Words too common in tasks and lessons to say that one concerns the other.
const STOP = new Set(
  (
    "the and for with that this from into are was were not but all any can has have its when then than use used " +
    "using will would should must make add fix check checks failed failing fixed iteration changing error errors " +
    "src lib test tests index main file files"
  ).split(" "),
)

function terms(text: string): Set<string> {
  const found = new Set<string>()
  for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? [])
    if (word.length >= 3 && !STOP.has(word)) found.add(word)
  return found
}

/** How much `entry` concerns a loop: shared terms, plus 5 per file of the loop the entry names. */
function relevance(entry: MemoryEntry, query: Set<string>, files: readonly string[]): number {
  let score = 0
  for (const term of terms(entry.text)) if (query.has(term)) score += 1
  for (const file of files) if (entry.text.includes(file)) score += 5
  return score
}

export function hydrate(memory: MemoryFile, task: string, files: readonly string[], budgetChars: number): Hydration {
  const query = terms(`${task} ${files.join(" ")}`)
  let room = budgetChars
  let omitted = 0
  const take = (list: string[], text: string) => {
    if (text.length + 3 > room) {
      omitted += 1
      return
    }
    list.push(text)
    room -= text.length + 3
  }
  const priority: string[] = []
  for (const entry of entries(memory, "priority")) take(priority, entry.text)
  const ranked = entries(memory, "working")
    .map((entry, index) => ({ entry, index, score: relevance(entry, query, files) }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || b.index - a.index)
  const relevant: string[] = []
  for (const { entry } of ranked) take(relevant, entry.text)
  return { priority, relevant, omitted }
}

/** The prompt section, or undefined when there is nothing to give. */
export function memoryPromptSection(h: Hydration, file: string): string | undefined {
  if (h.priority.length === 0 && h.relevant.length === 0) return undefined
  const lines = [`Project memory (from ${file}: earlier loops and the user; read that file for more):`]
  if (h.priority.length) lines.push("Always:", ...h.priority.map((t) => `- ${t}`))
  if (h.relevant.length) lines.push("Relevant to this task:", ...h.relevant.map((t) => `- ${t}`))
  if (h.omitted) lines.push(`(${h.omitted} more entr${h.omitted === 1 ? "y" : "ies"} left out for length)`)
  return lines.join("\n")
}

/**
 * The memory section of a loop's prompt: for its task, the files it names (`@path` or not) and the files it changed.
 */
export function loopMemorySection(
  memory: MemoryFile,
  loop: { task: string; targets: readonly string[]; settings: { memoryBudgetChars: number } },
  files: readonly string[] = [],
): string | undefined {
  const touched = [...new Set([...loop.targets, ...mentionedFiles(loop.task), ...files])]
  return memoryPromptSection(hydrate(memory, loop.task, touched, loop.settings.memoryBudgetChars), MEMORY_FILE)
}
