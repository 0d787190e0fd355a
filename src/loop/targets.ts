// Seed 004's `@path` in a task (`/ralph @src/services/ fix all lint errors`): the files or folders the
// loop works on. They scope what the plugin measures — the checks' per-file counts, the progress
// sample and the changed files of the handoff — and are named in the prompt's task as typed.
import type { CheckResult } from "../checks/diagnostics.js"

/** `@`-words of the task that look like paths (not e-mail addresses: the `@` starts a word). */
export function targetsOf(task: string): string[] {
  // Trailing punctuation is tried only where its run begins (`(?<!…)`), not from each mark of it.
  const found = [...task.matchAll(/(?:^|\s)@([\w./-][^\s]*)/g)].map((m) =>
    (m[1] as string).replace(/^\.\//, "").replace(/(?<![.,;:!?)])[.,;:!?)]+$/, ""),
  )
  return [
    ...new Set(found.filter((path) => path.length > 0 && !path.startsWith("/") && !path.split("/").includes(".."))),
  ]
}

/** Whether `path` (relative to the project) is one of the targets or inside one. */
export function inTargets(path: string, targets: readonly string[]): boolean {
  return (
    targets.length === 0 ||
    targets.some((t) => path === t.replace(/\/$/, "") || path.startsWith(t.endsWith("/") ? t : `${t}/`))
  )
}

/** A check's result counted only in the target files, where the check says which files its issues are in. */
export function scopeCheck(check: CheckResult, targets: readonly string[]): CheckResult {
  if (targets.length === 0 || check.files.length === 0) return check
  const files = check.files.filter((f) => inTargets(f.path, targets))
  const scoped = {
    ...check,
    files,
    errors: files.reduce((n, f) => n + f.errors, 0),
    warnings: files.reduce((n, f) => n + f.warnings, 0),
  }
  // A check that failed only over files outside the targets passes for this loop: what made it fail
  // is not the loop's to fix (and a failed check never meets the criteria).
  return check.status === "failed" && files.length === 0 ? { ...scoped, status: "passed", failures: [] } : scoped
}
