// autoCommit: after the plugin verified a plan story done, the loop's changes are committed on the
// user's branch as `story <id>: <title>` — only the files the loop changed (not the user's own
// uncommitted work from before it), with the repository's hooks (never --no-verify), and never on
// a detached HEAD or while the index holds a conflict.
import { execFile } from "node:child_process"

export type StoryCommit = { committed: string; files: number } | { skipped: string }

function git(directory: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd: directory, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error((stderr || stdout || error.message).trim().split("\n").slice(-3).join(" "))) : resolve(stdout),
    )
  })
}

export async function commitStory(directory: string, paths: readonly string[], message: string): Promise<StoryCommit> {
  const branch = await git(directory, ["symbolic-ref", "-q", "--short", "HEAD"]).then((out) => out.trim(), () => undefined)
  if (!branch) return { skipped: "HEAD is detached (or this is not a git repository)" }
  if ((await git(directory, ["ls-files", "-u"])).trim()) return { skipped: "the index holds a conflict (unmerged files)" }
  if (paths.length === 0) return { skipped: "the story changed no files" }
  await git(directory, ["add", "-A", "--", ...paths])
  await git(directory, ["commit", "-q", "-m", message, "--", ...paths])
  return { committed: `${branch} ${(await git(directory, ["rev-parse", "--short", "HEAD"])).trim()}`, files: paths.length }
}
