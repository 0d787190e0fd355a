// Seed 002's file protection, for tools: while a loop is active the agent may not delete or rewrite
// the loop's own files (its state under .opencode/ralph-loop/ and the summaries). Pure: it looks at
// a tool call's arguments only.
import { resolve } from "node:path"
import { isInside } from "../project/inside.js"
import { OPENCODE_DIR } from "../project/own-files.js"

export interface ProtectedArea {
  directory: string
  /** Folders relative to the project, without a trailing slash. */
  folders: string[]
}

const WRITE_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])
const DESTRUCTIVE = /\b(rm|rmdir|unlink|mv|cp|truncate|shred|tee|dd|install|rsync|chmod|chown)\b|\bsed\s+(-[a-zA-Z]*i|--in-place)|\bfind\b.*\s-(delete|exec)\b|>|\bgit\s+(clean|checkout|restore|rm|mv|stash)\b/

/** A reason to refuse the call, or undefined to let it run. */
export function refusal(tool: string, args: unknown, area: ProtectedArea): string | undefined {
  const a = (args ?? {}) as Record<string, unknown>
  if (WRITE_TOOLS.has(tool)) {
    const paths = [a.filePath, a.path, a.file_path].filter((p): p is string => typeof p === "string")
    const patch = typeof a.patchText === "string" ? a.patchText : typeof a.patch === "string" ? a.patch : ""
    for (const [, path] of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) if (path) paths.push(path.trim())
    const hit = paths.find((p) => inside(p, area))
    return hit ? `${tool} on ${hit} is refused: it belongs to the running Ralph loop` : undefined
  }
  if (tool === "bash" && typeof a.command === "string") {
    const command = a.command
    if (!DESTRUCTIVE.test(command)) return undefined
    if (/\bgit\s+clean\b[^;&|]*\s-[a-zA-Z]*[xX]/.test(command)) return "git clean -x would delete the running Ralph loop's files"
    const hit = words(command).find((word) => word === OPENCODE_DIR || word === `${area.directory}/${OPENCODE_DIR}` || inside(word, area))
    return hit ? `this command would change ${hit}, which belongs to the running Ralph loop` : undefined
  }
  return undefined
}

function inside(path: string, area: ProtectedArea): boolean {
  const target = resolve(area.directory, path.replace(/[*?]+.*$/, ""))
  return area.folders.some((folder) => isInside(resolve(area.directory, folder), target))
}

/** The words of a shell command, unquoted and without trailing slashes. */
function words(command: string): string[] {
  return command
    .split(/[\s;&|()<>]+/)
    .map((w) => w.replace(/^['"]|['"]$/g, "").replace(/\/+$/, ""))
    .filter(Boolean)
}
