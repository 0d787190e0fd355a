// Consolidation (seed 001): when a loop completes, what its failing checks taught it becomes
// working memory — the failures that were fixed before the end as lessons (what failed, by its
// failure identity, on which files, what the fix changed), each circular fix (A → B → A) as a
// warning. Later loops get the lessons that concern their task and files; a remembered failure
// failing again (the same check, the same identity) is named as a circular fix across loops.
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"
import { checkFailures, fileOfFailure, isRest } from "../checks/failures/index.js"
import type { MemoryEntry } from "./memory-file.js"

export interface Lesson {
  source: "lesson" | "circular fix"
  text: string
}

interface LoopHistory {
  snapshots: readonly DiagnosticSnapshot[]
  checkNames: readonly string[]
  recurring: readonly string[]
  /** Files the loop changed (git, since it began). */
  changed: readonly string[]
}

/** Failures named in one lesson at most; the rest are counted. */
const NAMED = 5
const FIXED = " — fixed in iteration "

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

export function lessonsOf(loop: LoopHistory): Lesson[] {
  const lessons: Lesson[] = []
  for (const check of loop.checkNames) {
    // Only a check that passes at the end taught something: what it failed on was fixed.
    if (loop.snapshots.at(-1)?.checks.find((c) => c.name === check)?.status !== "passed") continue
    // The failures on the same files make one lesson: a newer lesson on those files supersedes an older one.
    const groups = new Map<string, { files: string[]; failures: string[]; fixedIn: number }>()
    for (const { failure, files, fixedIn } of fixedFailures(loop.snapshots, check)) {
      if (files.length === 0) continue
      const key = files.join(", ")
      const group = groups.get(key) ?? { files, failures: [], fixedIn }
      group.failures.push(failure)
      group.fixedIn = Math.max(group.fixedIn, fixedIn)
      groups.set(key, group)
    }
    for (const { files, failures, fixedIn } of groups.values()) {
      const fixedFiles = loop.changed.filter((f) => files.includes(f))
      const changed = (fixedFiles.length ? fixedFiles : loop.changed).slice(0, 5)
      const named =
        failures.slice(0, NAMED).join("; ") + (failures.length > NAMED ? ` and ${failures.length - NAMED} more` : "")
      lessons.push({
        source: "lesson",
        text:
          `check ${check} failed on ${files.join(", ")}: ${named}${FIXED}` +
          `${fixedIn}${changed.length ? ` by changing ${changed.join(", ")}` : ""}`,
      })
    }
  }
  for (const failure of loop.recurring)
    lessons.push({ source: "circular fix", text: `circular fix: ${failure} — it was fixed, then came back` })
  return lessons
}

/**
 * Each failure of `check` in the loop that a later finished run no longer has: the files it
 * concerns (its own file, else those its check's output named when it last failed) and the
 * iteration of the first run without it.
 */
function fixedFailures(
  snapshots: readonly DiagnosticSnapshot[],
  check: string,
): Array<{ failure: string; files: string[]; fixedIn: number }> {
  const open = new Map<string, string[]>()
  const fixed = new Map<string, { failure: string; files: string[]; fixedIn: number }>()
  for (const snapshot of snapshots) {
    const run = snapshot.checks.find((c) => c.name === check)
    if (!run || (run.status !== "passed" && run.status !== "failed")) continue
    const failing = checkFailures(run)
    for (const [failure, files] of open)
      if (!failing.includes(failure)) {
        fixed.set(failure, { failure, files, fixedIn: snapshot.iteration })
        open.delete(failure)
      }
    const named = [...new Set([...run.files.map((f) => f.path), ...(run.mentioned ?? [])])].slice(0, 10)
    for (const failure of failing) {
      if (isRest(failure)) continue
      const own = fileOfFailure(failure)
      open.set(failure, own ? [own] : named)
      fixed.delete(failure)
    }
  }
  return [...fixed.values()]
}

/** What a lesson written by `lessonsOf` says failed, and in which check; undefined for any other entry. */
function lessonFailures(
  text: string,
  checkNames: readonly string[],
): { check: string; failures: string[] } | undefined {
  const check = [...checkNames]
    .sort((a, b) => b.length - a.length)
    .find((name) => text.startsWith(`check ${name} failed on `))
  const end = text.lastIndexOf(FIXED)
  if (!check || end < 0) return undefined
  const rest = text.slice(`check ${check} failed on `.length, end)
  const colon = rest.indexOf(": ")
  if (colon < 0) return undefined
  return {
    check,
    failures: rest
      .slice(colon + 2)
      .replace(/ and \d+ more$/, "")
      .split("; "),
  }
}

/**
 * The remembered lessons whose failure is back: the same check failing now with a failure the lesson
 * names. Each is worded for the prompt.
 */
export function returningFailures(
  remembered: readonly MemoryEntry[],
  now: DiagnosticSnapshot | undefined,
  checkNames: readonly string[],
): string[] {
  const failing = (now?.checks ?? [])
    .filter((c) => c.status !== "passed")
    .map((c) => ({ name: c.name, failures: new Set(checkFailures(c)) }))
  if (failing.length === 0) return []
  const found: string[] = []
  for (const entry of remembered) {
    const lesson = lessonFailures(entry.text, checkNames)
    if (!lesson) continue
    const back = failing.some((c) => c.name === lesson.check && lesson.failures.some((f) => c.failures.has(f)))
    if (back)
      found.push(
        `circular fix across loops: an earlier loop (${entry.date ?? "earlier"}) fixed this and it is failing ` +
          `again — ${entry.text}`,
      )
  }
  return found
}
