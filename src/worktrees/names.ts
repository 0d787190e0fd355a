// Where a worktree loop lives and what it is called: `.opencode/ralph-loop/worktrees/<NAME>` on the
// branch `ralph/<NAME>`. A name is given (`--worktree=NAME`, or `--worktree NAME` when the word
// looks like a name) or derived from the task.
import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"

export const WORKTREES_DIR = `${STATE_DIR}/worktrees`

export const branchOf = (name: string): string => `ralph/${name}`

/**
 * The name a loop's files are archived under (`merged/<NAME>/`): the worktree's, or for a slot of a parallel run
 * the story's (its branch without `ralph/`).
 */
export const loopName = (state: { name: string; branch: string; slot?: true | undefined }): string =>
  state.slot ? state.branch.slice(branchOf("").length) : state.name

export const worktreePath = (directory: string, name: string): string => join(directory, WORKTREES_DIR, name)

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Why `name` cannot name a worktree and its branch, or undefined when it can. */
export function invalidName(name: string): string | undefined {
  if (!NAME.test(name))
    return (
      `"${name}" is not a worktree name: use letters, digits, ".", "_" and "-" (at most 64, starting with a ` +
      `letter or digit)`
    )
  const refused = branchNameProblem(branchOf(name))
  if (refused) return `"${name}" is not a worktree name: git refuses it as a branch name (it ${refused})`
  return undefined
}

const REFUSED_CHARACTERS = new Set([" ", "~", "^", ":", "?", "*", "[", "\\"])

/**
 * What git's `check-ref-format` (its rules 1–10) refuses in the full ref name `ref`
 * (`refs/heads/ralph/x`), or undefined when it takes it. Pure, linear in the name.
 */
function refNameProblem(ref: string): string | undefined {
  if (ref === "@") return "is the single character @"
  if (!ref.includes("/")) return "has no slash"
  if (ref.startsWith("/") || ref.endsWith("/") || ref.includes("//"))
    return "begins or ends with a slash, or has two in a row"
  if (ref.endsWith(".")) return "ends with a dot"
  if (ref.includes("..")) return "has two dots in a row"
  if (ref.includes("@{")) return "has @{"
  for (const character of ref) {
    const code = character.charCodeAt(0)
    if (code < 0x20 || code === 0x7f) return "has a control character"
    if (REFUSED_CHARACTERS.has(character)) return `has ${JSON.stringify(character)}`
  }
  for (const component of ref.split("/")) {
    if (component.startsWith(".")) return `has a part that begins with a dot (${component})`
    if (component.endsWith(".lock")) return `has a part that ends with .lock (${component})`
  }
  return undefined
}

/** What `git check-ref-format --branch` refuses in a branch name, or undefined when it takes it. */
export const branchNameProblem = (branch: string): string | undefined =>
  branch.startsWith("-") ? "begins with a dash" : refNameProblem(`refs/heads/${branch}`)

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
