// Consolidation (seed 001): when a loop completes, what its failing checks taught it becomes
// working memory — each failure that was fixed before the end as a lesson (what failed, on which
// files, what the fix changed), each circular fix (A → B → A) as a warning. Later loops get the
// lessons that concern their task and files; a failure that comes back on the same files is named
// as a circular fix across loops.
import type { DiagnosticSnapshot } from "../loop/diagnostics.js"
import type { Gotcha } from "../loop/gotchas.js"
import type { MemoryEntry } from "./memory-file.js"

export interface Lesson {
  source: "lesson" | "circular fix"
  text: string
}

interface LoopHistory {
  gotchas: readonly Gotcha[]
  snapshots: readonly DiagnosticSnapshot[]
  checkNames: readonly string[]
  recurring: readonly string[]
  /** Files the loop changed (git, since it began). */
  changed: readonly string[]
}

// A lesson's text: `check NAME failed on FILES: …`. In two steps: as one pattern,
// `^check (.+?) failed on (.+?): `, every ` failed on ` read the rest of the text for `: ` again.
const LESSON_CHECK = /^check (.+?) failed on /
const LESSON_FILES = /^(.+?): /

/** The check and the file list (`a.js, b.js`) a lesson's text names; undefined: not a lesson. */
export function lessonParts(text: string): { check: string; files: string } | undefined {
  const check = LESSON_CHECK.exec(text)
  const files = check && LESSON_FILES.exec(text.slice(check[0].length))
  return check?.[1] && files?.[1] ? { check: check[1], files: files[1] } : undefined
}

const checkOf = (gotcha: Gotcha, names: readonly string[]) => names.find((name) => gotcha.title.startsWith(`${name}: `))

export function lessonsOf(loop: LoopHistory): Lesson[] {
  const lessons: Lesson[] = []
  for (const gotcha of loop.gotchas) {
    const check = checkOf(gotcha, loop.checkNames)
    if (!check || gotcha.files.length === 0) continue
    const passedAt = loop.snapshots.find((s) => s.iteration > gotcha.iteration && s.checks.some((c) => c.name === check && c.status === "passed"))
    const last = loop.snapshots.at(-1)?.checks.find((c) => c.name === check)
    if (!passedAt || last?.status !== "passed") continue
    const fixedIn = loop.changed.filter((f) => gotcha.files.includes(f))
    const changed = (fixedIn.length ? fixedIn : loop.changed).slice(0, 5)
    const error = gotcha.title.slice(check.length + 2)
    lessons.push({ source: "lesson", text: `check ${check} failed on ${gotcha.files.join(", ")}: ${error} — fixed in iteration ${passedAt.iteration}${changed.length ? ` by changing ${changed.join(", ")}` : ""}` })
  }
  for (const failure of loop.recurring) lessons.push({ source: "circular fix", text: `circular fix: ${failure} — it was fixed, then came back` })
  return lessons
}

/**
 * The remembered lessons whose failure is back: the same check failing again on a file the lesson
 * names. Each is worded for the prompt.
 */
export function returningFailures(remembered: readonly MemoryEntry[], gotchas: readonly Gotcha[], checkNames: readonly string[]): string[] {
  const found: string[] = []
  for (const entry of remembered) {
    const lesson = lessonParts(entry.text)
    if (!lesson) continue
    const { check } = lesson
    const files = lesson.files.split(", ")
    const back = gotchas.some((g) => checkOf(g, checkNames) === check && g.files.some((f) => files.includes(f)))
    if (back) found.push(`circular fix across loops: an earlier loop (${entry.date ?? "earlier"}) fixed this and it is failing again — ${entry.text}`)
  }
  return found
}
