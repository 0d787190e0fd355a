// autoCommit's git side on real repositories: a story's files committed on the branch (and only
// they), and the refusals — a detached HEAD, a conflict in the index, a hook that says no (never
// bypassed with --no-verify), a story that changed nothing.
import { execFileSync } from "node:child_process"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commitStory } from "../../src/actions/auto-commit.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

function repo(): string {
  const dir = tmp("auto-commit-")
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.name", "The User")
  git(dir, "config", "user.email", "user@example.invalid")
  writeFileSync(join(dir, "a.txt"), "a\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

describe("autoCommit: commitStory", () => {
  it("commits only the story's files on the current branch, the user's other changes left as they were", async () => {
    const dir = repo()
    writeFileSync(join(dir, "story.txt"), "the story's work\n")
    writeFileSync(join(dir, "a.txt"), "the user's own edit\n")
    const result = await commitStory(dir, ["story.txt"], "story S-1: first")
    expect(result).toEqual({ committed: `main ${git(dir, "rev-parse", "--short", "HEAD")}`, files: 1 })
    expect(git(dir, "log", "--format=%s")).toBe("story S-1: first\nstart")
    expect(git(dir, "show", "--name-only", "--format=", "HEAD")).toBe("story.txt")
    expect(git(dir, "status", "--porcelain")).toBe("M a.txt")
  })

  it("refuses on a detached HEAD, with a conflict in the index, or with no files, and commits nothing", async () => {
    const detached = repo()
    git(detached, "checkout", "-q", "--detach")
    writeFileSync(join(detached, "story.txt"), "work\n")
    expect(await commitStory(detached, ["story.txt"], "story S-1: first")).toEqual({ skipped: "HEAD is detached (or this is not a git repository)" })
    expect(git(detached, "log", "--format=%s")).toBe("start")

    const conflicted = repo()
    git(conflicted, "checkout", "-q", "-b", "other")
    writeFileSync(join(conflicted, "a.txt"), "theirs\n")
    git(conflicted, "commit", "-q", "-am", "theirs")
    git(conflicted, "checkout", "-q", "main")
    writeFileSync(join(conflicted, "a.txt"), "ours\n")
    git(conflicted, "commit", "-q", "-am", "ours")
    expect(() => git(conflicted, "merge", "-q", "other")).toThrow()
    writeFileSync(join(conflicted, "story.txt"), "work\n")
    expect(await commitStory(conflicted, ["story.txt"], "story S-1: first")).toEqual({ skipped: "the index holds a conflict (unmerged files)" })
    expect(git(conflicted, "log", "-1", "--format=%s")).toBe("ours")

    expect(await commitStory(repo(), [], "story S-1: first")).toEqual({ skipped: "the story changed no files" })
  })

  it("runs the repository's hooks: a pre-commit hook that refuses fails the commit with its message", async () => {
    const dir = repo()
    const hook = join(dir, ".git/hooks/pre-commit")
    writeFileSync(hook, "#!/bin/sh\necho 'pre-commit: lint failed' >&2\nexit 1\n")
    chmodSync(hook, 0o755)
    writeFileSync(join(dir, "story.txt"), "work\n")
    await expect(commitStory(dir, ["story.txt"], "story S-1: first")).rejects.toThrow("pre-commit: lint failed")
    expect(git(dir, "log", "--format=%s")).toBe("start")
  })
})
