// The one git fixture of the tests: git run with a fixed identity, and a repository made in one call.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"

/** The identity of the fixture's own commits: in the environment, never written into the repository. */
export const FIXTURE_IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
} as const

/** git in `dir` with the fixture's identity: what it printed, trimmed. Throws when git fails. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, ...FIXTURE_IDENTITY },
    maxBuffer: 256 * 1024 * 1024,
  }).trim()
}

/** Every change in `dir` committed (the fixture's identity). */
export function commitAll(dir: string, message: string): void {
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", message)
}

/**
 * A repository in `dir` on branch main with `files` committed as "start" (no commit when there are none).
 * `user`: an identity in the repository's config too ("The User"), the one the plugin's own commits take.
 */
export function makeRepo(dir: string, files: Record<string, string> = {}, options: { user?: boolean } = {}): string {
  git(dir, "init", "-q", "-b", "main")
  if (options.user) {
    git(dir, "config", "user.name", "The User")
    git(dir, "config", "user.email", "user@example.invalid")
  }
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text)
  if (Object.keys(files).length > 0) commitAll(dir, "start")
  return dir
}
