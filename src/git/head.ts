// What HEAD is: its commit (none in a repository without one) and its branch (none when detached).
// Both are answers git gives with exit 1; any other failure is a GitError, never read as "none".
import { git, GitError } from "./run.js"

/** HEAD's commit; undefined in a repository without one. */
export async function headCommit(repo: string): Promise<string | undefined> {
  const args = ["rev-parse", "--verify", "-q", "HEAD^{commit}"]
  const result = await git(repo, args, { answers: [1] })
  if (!result.ok) throw new GitError(args, result)
  return result.stdout.trim() || undefined
}

/** The branch HEAD is on (its short name); undefined when HEAD is detached. */
export async function currentBranch(repo: string): Promise<string | undefined> {
  const args = ["symbolic-ref", "-q", "--short", "HEAD"]
  const result = await git(repo, args, { answers: [1] })
  if (!result.ok) throw new GitError(args, result)
  return result.stdout.trim() || undefined
}
