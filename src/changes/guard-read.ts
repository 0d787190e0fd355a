// What the guard reads for a claim of done (issue 39), with git: the diff of the loop's changes from
// its start checkpoint (refs/ralph/<loop>/0) to the work tree now, inside the project
// (`--relative`), renames found; and the whole texts the scan needs of the files the diff touches
// (pyproject.toml and setup.cfg for their sections, package.json for the scripts) at both points.
// The work tree is read as a tree object through a temporary index: the user's index is not touched.
// A git failure throws (the caller says it, never reads it as "no change").
import { checkpointRef } from "../checkpoints/checkpoints.js"
import { git, gitText, notARepository } from "../git/run.js"
import { workTreeSnapshot } from "../checkpoints/checkpoint-git.js"
import { parseDiff } from "../evidence/diff.js"
import { needsWholeText, type FileTexts } from "../evidence/scan.js"

export type GuardRead =
  | { diff: string; texts: FileTexts; packageJson: { before: string | null; after: string | null } | undefined }
  /** Not a git repository, or the loop has no start checkpoint (made before it could be): nothing to read. */
  | { unread: string }

/** A file's text at `rev` (a commit or a tree), by its path in the project. */
const textAt = (directory: string, rev: string, path: string): Promise<string> =>
  gitText(directory, ["cat-file", "blob", `${rev}:./${path}`])

/** `at`: the work tree now as a commit already made (the turn end's checkpoint), else it is read now. */
export async function readGuardInput(directory: string, loopID: string, at?: string): Promise<GuardRead> {
  const start = await git(directory, ["rev-parse", "--verify", "-q", `${checkpointRef(loopID, 0)}^{commit}`])
  if (notARepository(start)) return { unread: "the project is not a git repository" }
  if (!start.ok) return { unread: "the loop has no start checkpoint" }
  const from = start.stdout.trim()
  const now = at ?? (await workTreeSnapshot(directory))
  if (now === undefined) return { unread: "the project is not a git repository" }
  const diff = await gitText(directory, ["diff", "--no-color", "--no-ext-diff", "-M", "--relative", from, now])
  const texts = new Map<string, { before?: string; after?: string }>()
  let packageJson: { before: string | null; after: string | null } | undefined
  for (const file of parseDiff(diff)) {
    // A new file has no text before, a deleted one none after: only what exists is read.
    const path = file.newPath ?? file.oldPath ?? ""
    const read = async () => ({
      before: file.oldPath !== null ? await textAt(directory, from, file.oldPath) : null,
      after: file.newPath !== null ? await textAt(directory, now, file.newPath) : null,
    })
    if (path === "package.json" || file.oldPath === "package.json") packageJson = await read()
    else if (needsWholeText(path)) {
      const { before, after } = await read()
      texts.set(path, { ...(before !== null ? { before } : {}), ...(after !== null ? { after } : {}) })
    }
  }
  return { diff, texts, packageJson }
}
