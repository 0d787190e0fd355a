// Seed 002's file protection, for tools: while a loop is active the agent may not delete or rewrite
// the loop's own files (its state under .opencode/ralph-loop/ and the summaries). Pure: it looks at
// a tool call's arguments only.
import { resolve, sep } from "node:path"
import { isInside } from "../project/inside.js"
import { OPENCODE_DIR } from "../project/own-files.js"

export interface ProtectedArea {
  directory: string
  /** Folders relative to the project, without a trailing slash. */
  folders: string[]
  /**
   * The loops' session folders, asked by name: the folders (absolute, resolved) that folders of
   * this name are loops' session folders in. Asked for each part of a path, so it must be a lookup
   * (the tool guard's: the loops by id and by earlier session).
   */
  sessionFolderParents?: (name: string) => readonly string[]
}

const WRITE_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])
const FILE_COMMANDS = /\b(rm|rmdir|unlink|mv|cp|truncate|shred|tee|dd|install|rsync|chmod|chown)\b/
const GIT_WRITES = /\bgit\s+(clean|checkout|restore|rm|mv|stash)\b/
const DESTRUCTIVE = new RegExp(`${FILE_COMMANDS.source}|\\bsed\\s+(-[a-zA-Z]*i|--in-place)|>|${GIT_WRITES.source}`)

/** A reason to refuse the call, or undefined to let it run. */
export function refusal(tool: string, args: unknown, area: ProtectedArea): string | undefined {
  const a = (args ?? {}) as Record<string, unknown>
  if (WRITE_TOOLS.has(tool)) {
    const paths = [a.filePath, a.path, a.file_path].filter((p): p is string => typeof p === "string")
    const patch = typeof a.patchText === "string" ? a.patchText : typeof a.patch === "string" ? a.patch : ""
    for (const [, path] of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm))
      if (path) paths.push(path.trim())
    const hit = paths.find((p) => inside(p, area))
    return hit ? `${tool} on ${hit} is refused: it belongs to the running Ralph loop` : undefined
  }
  if (tool === "bash" && typeof a.command === "string") {
    const command = a.command
    if (!DESTRUCTIVE.test(command) && !findDeletes(command)) return undefined
    if (gitCleanX(command)) return "git clean -x would delete the running Ralph loop's files"
    const hit = words(command).find(
      (word) => word === OPENCODE_DIR || word === `${area.directory}/${OPENCODE_DIR}` || inside(word, area),
    )
    return hit ? `this command would change ${hit}, which belongs to the running Ralph loop` : undefined
  }
  return undefined
}

// What `\bfind\b.*\s-(delete|exec)\b` and `\bgit\s+clean\b[^;&|]*\s-[a-zA-Z]*[xX]` found, tried from
// the first `find` of each line and the first `git clean` of each part between `;`, `&` and `|`
// only: a later one there finds nothing the first did not. As patterns they were tried from each,
// and each read the rest of its line or part again (a heredoc of many took seconds).
const FIND = /\bfind\b/g
const DELETES_AFTER_FIND = /.*\s-(delete|exec)\b/y
const GIT_CLEAN = /\bgit\s+clean\b/g
const X_AFTER_GIT_CLEAN = /[^;&|]*\s-[a-zA-Z]*[xX]/y

function findDeletes(command: string): boolean {
  return triedOncePerPart(command, FIND, DELETES_AFTER_FIND, /[\n\r\u2028\u2029]/g)
}

function gitCleanX(command: string): boolean {
  return triedOncePerPart(command, GIT_CLEAN, X_AFTER_GIT_CLEAN, /[;&|]/g)
}

/** Whether `rest` matches right after a `start`, trying only the first `start` of each part (parts end at `end`). */
function triedOncePerPart(command: string, start: RegExp, rest: RegExp, end: RegExp): boolean {
  start.lastIndex = 0
  for (let found = start.exec(command); found; found = start.exec(command)) {
    rest.lastIndex = start.lastIndex
    if (rest.test(command)) return true
    end.lastIndex = start.lastIndex
    if (!end.test(command)) return false
    start.lastIndex = end.lastIndex
  }
  return false
}

function inside(path: string, area: ProtectedArea): boolean {
  const target = resolve(area.directory, withoutGlob(path))
  if (area.folders.some((folder) => isInside(resolve(area.directory, folder), target))) return true
  return area.sessionFolderParents !== undefined && inSessionFolder(target, area.sessionFolderParents)
}

/**
 * `target` (absolute, resolved) is a session folder or lies below one: each part of it is looked up
 * by name, and a part a loop keeps a folder of that name for is compared with the parent it keeps it
 * in, without cutting the parent out (linear in the path, whatever the number of loops).
 */
function inSessionFolder(target: string, parentsOf: (name: string) => readonly string[]): boolean {
  for (let start = target.indexOf(sep) + 1; start > 0 && start < target.length; ) {
    const end = target.indexOf(sep, start)
    const name = target.slice(start, end < 0 ? target.length : end)
    for (const parent of name ? parentsOf(name) : []) {
      // The parent is the target up to this part: without its separator, or (a root) with it.
      const length = parent.endsWith(sep) ? start : start - 1
      if (parent.length === length && target.startsWith(parent)) return true
    }
    start = end < 0 ? -1 : end + 1
  }
  return false
}

/**
 * The path up to its first `*` or `?` on its last line (what `/[*?]+.*$/` removed, found without
 * that pattern's backtracking: cubic on a long run of `*`).
 */
function withoutGlob(path: string): string {
  const lastLine = Math.max(...["\n", "\r", "\u2028", "\u2029"].map((end) => path.lastIndexOf(end))) + 1
  const glob = path.slice(lastLine).search(/[*?]/)
  return glob < 0 ? path : path.slice(0, lastLine + glob)
}

/** The words of a shell command, unquoted and without trailing slashes. */
function words(command: string): string[] {
  return command
    .split(/[\s;&|()<>]+/)
    .map((w) => w.replace(/^['"]|['"]$/g, "").replace(/(?<!\/)\/+$/, ""))
    .filter(Boolean)
}
