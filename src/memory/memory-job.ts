// The project memory in a loop's work: what a fresh session is given (hydration), failures an
// earlier loop fixed that are back, and the lessons a completed loop leaves (consolidation).
import { featureOn } from "../config/features.js"
import { recurringFailures } from "../loop/criteria.js"
import type { Loop } from "../loop/loop.js"
import { lessonsOf, returningFailures } from "./lessons.js"
import { entries } from "./memory-file.js"
import { loopMemorySection } from "./relevance.js"
import { io, log, type Job } from "../engine/effects.js"

const checkNames = (loop: Loop) => loop.settings.checks.map((c) => c.name)

/** The memory section of a prompt: priority entries and those relevant to the task and `files`. */
export function* memorySection(loop: Loop, files: readonly string[]): Job<string | undefined> {
  if (loop.settings.memoryBudgetChars === 0) return undefined
  return loopMemorySection(yield* io({ kind: "memory" }), loop, files)
}

/** Failures of this loop's last check run that an earlier loop had fixed (a circular fix across loops). */
export function* returningFailureLines(loop: Loop): Job<string[]> {
  const last = loop.snapshots.at(-1)
  if (!last?.checks.some((c) => c.status !== "passed")) return []
  const memory = yield* io({ kind: "memory" })
  return returningFailures(entries(memory, "working"), last, checkNames(loop))
}

/** A loop completed: its fixed failures and circular fixes become working memory. */
export function* consolidate(loop: Loop): Job {
  if (!featureOn(loop.settings, "remember")) return
  const recurring = recurringFailures(loop.snapshots)
  if (!loop.snapshots.some((s) => s.checks.some((c) => c.status !== "passed")) && recurring.length === 0) return
  try {
    const changed = yield* io({ kind: "changed-files", loop })
    const lessons = lessonsOf({ snapshots: loop.snapshots, checkNames: checkNames(loop), recurring, changed })
    if (lessons.length === 0) return
    yield* io({
      kind: "remember",
      items: lessons.map((l) => ({ section: "working" as const, ...l })),
      maxEntries: loop.settings.memoryMaxEntries,
    })
    yield* log("info", "lessons of the loop remembered", { loop: loop.id, lessons: lessons.length })
  } catch (error) {
    yield* log("warn", `could not remember the loop's lessons: ${String(error)}`, { loop: loop.id })
  }
}
