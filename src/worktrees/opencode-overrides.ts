// What a worktree loop's own OpenCode instance runs without: OpenCode's snapshots. With them on
// (OpenCode's default) the instance copies the whole work tree into a git store of its own at its
// first turn and looks at it again at every step — in a fresh worktree of 5,000 files that was
// 2–4 s more before the model's first request (docs/opencode-notes.md). The loop keeps checkpoints
// of its own, and its work is committed and merged by the plugin, so the worktree needs neither
// OpenCode's undo of a turn nor its session diff. Everything else of the user's config (model,
// provider, permissions, agents, tools, MCP, LSP, formatters) stays as it is. Pure.
import { applyEdits, parseTree, type ParseError } from "jsonc-parser"
import { propertyEdits } from "../files/json-edit.js"

const WORKTREE_OPENCODE_OVERRIDES = { snapshot: false } as const

/** The config file the plugin writes into a worktree's `.opencode/` when it copies none there. */
export const OVERRIDES_FILE = "opencode.jsonc"

const OWN_FILE =
  "// Written by ralph-loop for this worktree loop's OpenCode instance: no snapshots of its own " +
  `(the loop keeps checkpoints).\n${JSON.stringify(WORKTREE_OPENCODE_OVERRIDES, null, 2)}\n`

/**
 * The text of the worktree's `.opencode/` config: `copied` (the project's config the plugin copied
 * there) with the overrides set in it, every other byte kept; without a copy, a file of the
 * overrides alone. Undefined when the copy is no JSON(C) object: it is left as OpenCode will read it.
 */
export function withWorktreeOverrides(copied: string | undefined): string | undefined {
  if (copied === undefined) return OWN_FILE
  const errors: ParseError[] = []
  const root = parseTree(copied, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length > 0 || root?.type !== "object") return undefined
  const set = Object.entries(WORKTREE_OPENCODE_OVERRIDES).map(([key, value]) => ({ key, value }))
  return applyEdits(copied, propertyEdits(copied, [{ at: [], set }]))
}
