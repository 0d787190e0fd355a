// Who the plugin's commits are by — checkpoints, story commits (autoCommit and --story branches),
// a worktree loop's commits and its merge: the user's own identity when git has one (user.email is
// set), else ralph-loop's, so a commit never fails for want of an author. One rule, here only.
import { git, GitError } from "./run.js"

/** The author and committer when git has no identity of the user's. */
export const RALPH_IDENTITY = {
  GIT_AUTHOR_NAME: "ralph-loop",
  GIT_AUTHOR_EMAIL: "ralph-loop@localhost",
  GIT_COMMITTER_NAME: "ralph-loop",
  GIT_COMMITTER_EMAIL: "ralph-loop@localhost",
} as const

/** The env to pass to a git call that commits; `{}` leaves it to the user's config. A git failure throws. */
export async function commitIdentity(repo: string): Promise<Record<string, string>> {
  const args = ["config", "user.email"]
  // Exit 1: the key is not set (an answer); anything else is a failure, never read as "no identity".
  const email = await git(repo, args, { answers: [1] })
  if (!email.ok) throw new GitError(args, email)
  return email.code === 0 && email.stdout.trim() ? {} : { ...RALPH_IDENTITY }
}
