// The git API of src/git on real repositories: the temporary index (gone afterwards, also when the
// work fails), the one identity rule of the plugin's commits, the merge preview (clean, and the
// files in conflict), and failures that are typed — a git fault is never read as "none".
import { execFileSync } from "node:child_process"
import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { commitStory } from "../../src/changes/auto-commit.js"
import { makeCheckpoint } from "../../src/checkpoints/checkpoint-git.js"
import { storyBranchProblem } from "../../src/worktrees/story-commit.js"
import { createWorktree } from "../../src/worktrees/worktree-git.js"
import { headCommit } from "../../src/git/head.js"
import { commitIdentity, RALPH_IDENTITY } from "../../src/git/identity.js"
import { previewMerge } from "../../src/git/merge-preview.js"
import { gitText, GitError } from "../../src/git/run.js"
import { withTempIndex } from "../../src/git/temp-index.js"
import { fakeGit } from "./fake-git.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const withGit = fakeGit()
/** git as the test's user, whatever the repository's config (the plugin's commits are what is tested). */
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", ...args], {
    cwd: dir,
    encoding: "utf8",
  }).trim()

// No global or system git config: whether git has an identity is the repository's config alone.
const saved = { global: process.env.GIT_CONFIG_GLOBAL, nosystem: process.env.GIT_CONFIG_NOSYSTEM }
beforeEach(() => {
  process.env.GIT_CONFIG_GLOBAL = "/dev/null"
  process.env.GIT_CONFIG_NOSYSTEM = "1"
})
afterEach(() => {
  for (const [name, value] of [
    ["GIT_CONFIG_GLOBAL", saved.global],
    ["GIT_CONFIG_NOSYSTEM", saved.nosystem],
  ] as const) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

/** A repository with one commit, and no identity in its config unless `email` is given. */
function repo(email?: string): string {
  const dir = tmp("git-api-")
  git(dir, "init", "-q", "-b", "main")
  if (email) {
    git(dir, "config", "user.name", "The User")
    git(dir, "config", "user.email", email)
  }
  writeFileSync(join(dir, "a.txt"), "a\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

/** The files in the repository's git folder whose name says they are a temporary index of ours. */
const tempIndexes = (dir: string) => readdirSync(join(dir, ".git")).filter((name) => name.startsWith("ralph-index-"))

describe("withTempIndex", () => {
  it("gives each call an index of its own beside git's, and removes it afterwards", async () => {
    const dir = repo()
    const seen: string[] = []
    const trees = await Promise.all(
      [1, 2].map(() =>
        withTempIndex(dir, async (env) => {
          seen.push(env.GIT_INDEX_FILE)
          await gitText(dir, ["read-tree", "HEAD"], { env })
          return (await gitText(dir, ["write-tree"], { env })).trim()
        }),
      ),
    )
    expect(trees[0]).toBe(git(dir, "rev-parse", "HEAD^{tree}"))
    expect(new Set(seen).size).toBe(2)
    expect(seen.every((path) => path.startsWith(join(dir, ".git", "ralph-index-")))).toBe(true)
    expect(tempIndexes(dir)).toEqual([])
  })

  it("removes the index when the work fails, and passes the failure on", async () => {
    const dir = repo()
    const failed = withTempIndex(dir, async (env) => {
      await gitText(dir, ["read-tree", "HEAD"], { env })
      expect(tempIndexes(dir)).toHaveLength(1)
      await gitText(dir, ["read-tree", "no-such-tree"], { env })
    })
    await expect(failed).rejects.toThrow(GitError)
    expect(tempIndexes(dir)).toEqual([])
  })

  it("outside a repository: a GitError, nothing made", async () => {
    const dir = tmp("git-api-none-")
    await expect(withTempIndex(dir, async () => "never")).rejects.toThrow(GitError)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe("one identity for the plugin's commits", () => {
  it("the user's own when git has one, else ralph-loop's", async () => {
    expect(await commitIdentity(repo("user@example.invalid"))).toEqual({})
    expect(await commitIdentity(repo())).toEqual(RALPH_IDENTITY)
  })

  it("checkpoints and story commits follow it", async () => {
    const mine = repo("user@example.invalid")
    const checkpoint = await makeCheckpoint(mine, "L1", 0)
    expect(git(mine, "log", "-1", "--format=%an <%ae>|%cn <%ce>", checkpoint?.commit ?? "")).toBe(
      "The User <user@example.invalid>|The User <user@example.invalid>",
    )
    const anonymous = repo()
    writeFileSync(join(anonymous, "story.txt"), "work\n")
    const story = await commitStory(anonymous, ["story.txt"], "story S-1: first")
    expect(story).toEqual({ committed: `main ${git(anonymous, "rev-parse", "--short", "HEAD")}`, files: 1 })
    expect(git(anonymous, "log", "-1", "--format=%an <%ae>|%cn <%ce>")).toBe(
      "ralph-loop <ralph-loop@localhost>|ralph-loop <ralph-loop@localhost>",
    )
  })

  it("a git that fails to say is a GitError, not 'no identity'", async () => {
    const dir = repo("user@example.invalid")
    const fault = `echo "fatal: bad config line 1 in file .git/config" >&2; exit 128;;`
    withGit(tmp("fake-git-"), `*" config user.email "*) ${fault}`)
    await expect(commitIdentity(dir)).rejects.toThrow(GitError)
  })
})

describe("previewMerge", () => {
  /** main and ralph/x, each with a commit after `start`; x's touches `file` with `content`. */
  function diverged(file: string, content: string): string {
    const dir = repo("user@example.invalid")
    git(dir, "switch", "-q", "-c", "ralph/x")
    writeFileSync(join(dir, file), content)
    git(dir, "add", ".")
    git(dir, "commit", "-q", "-m", "x's work")
    git(dir, "switch", "-q", "main")
    writeFileSync(join(dir, "a.txt"), "main's a\n")
    git(dir, "commit", "-q", "-am", "main's work")
    return dir
  }

  it("a clean merge: the merged tree, the work tree and index untouched", async () => {
    const dir = diverged("b.txt", "x's b\n")
    const preview = await previewMerge(dir, "ralph/x")
    expect(preview.clean).toBe(true)
    if (!preview.clean) return
    expect(git(dir, "ls-tree", "--name-only", preview.tree)).toBe("a.txt\nb.txt")
    expect(git(dir, "status", "--porcelain")).toBe("")
  })

  it("a conflicting merge: the files in conflict, nothing merged", async () => {
    const dir = diverged("a.txt", "x's a\n")
    const head = git(dir, "rev-parse", "HEAD")
    expect(await previewMerge(dir, "ralph/x")).toEqual({ clean: false, conflicts: ["a.txt"] })
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
    expect(git(dir, "status", "--porcelain")).toBe("")
  })

  it("a branch that is not there: a GitError, never 'clean'", async () => {
    const dir = repo("user@example.invalid")
    await expect(previewMerge(dir, "ralph/none")).rejects.toThrow(GitError)
  })
})

describe("typed failures: a git fault is never read as 'none'", () => {
  const FAULT = `*" rev-parse --verify -q HEAD"*) echo "fatal: unable to read index: Permission denied" >&2; exit 128;;`

  it("headCommit: undefined only in a repository without a commit", async () => {
    const empty = tmp("git-api-empty-")
    git(empty, "init", "-q")
    expect(await headCommit(empty)).toBeUndefined()
    const dir = repo()
    withGit(tmp("fake-git-"), FAULT)
    await expect(headCommit(dir)).rejects.toThrow(GitError)
  })

  it("a worktree loop's start says git failed, not that the repository has no commit", async () => {
    const dir = repo("user@example.invalid")
    withGit(tmp("fake-git-"), FAULT)
    await expect(createWorktree(dir, "w1", false)).rejects.toThrow("Permission denied")
  })

  it("a --story branch's check says git failed, not that the project is not a repository", async () => {
    const dir = repo("user@example.invalid")
    withGit(tmp("fake-git-"), FAULT)
    await expect(storyBranchProblem(dir, "ralph/story-s1")).rejects.toThrow("Permission denied")
  })
})
