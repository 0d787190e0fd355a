// Where a worktree loop lives and what it is called: `.opencode/ralph-loop/worktrees/<NAME>` on the
// branch `ralph/<NAME>`. A name is given (`--worktree=NAME`, or `--worktree NAME` when the word
// looks like a name) or derived from the task.
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"

export const WORKTREES_DIR = `${STATE_DIR}/worktrees`

export const branchOf = (name: string): string => `ralph/${name}`

export const worktreePath = (directory: string, name: string): string => join(directory, WORKTREES_DIR, name)

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Why `name` cannot name a worktree and its branch, or undefined when it can. */
export function invalidName(name: string): string | undefined {
  if (!NAME.test(name)) return `"${name}" is not a worktree name: use letters, digits, ".", "_" and "-" (at most 64, starting with a letter or digit)`
  if (name.endsWith(".lock") || name.includes("..") || name.endsWith(".")) return `"${name}" is not a worktree name: git refuses it as a branch name`
  return undefined
}

/**
 * After `--worktree`, a word is the worktree's name (not the task's first word) when it could only
 * be a name: it has a dash, underscore, dot or digit (`auth-fix`, `try2`). `--worktree=NAME` always names.
 */
export const looksLikeWorktreeName = (word: string): boolean => invalidName(word) === undefined && /[-_.0-9]/.test(word)

/** A name from the task's first words (`fix the login bug` → `fix-the-login-bug`), unique among `taken`. */
export function nameFromTask(task: string, taken: ReadonlySet<string>): string {
  const words = task.toLowerCase().match(/[a-z0-9]+/g) ?? []
  let base = ""
  for (const word of words) {
    if ((base ? base.length + 1 : 0) + word.length > 32) break
    base = base ? `${base}-${word}` : word
  }
  base ||= "loop"
  if (!taken.has(base)) return base
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
}
