// A file rewritten at the same size in the second git last wrote the index ("racily clean"): git
// itself re-reads it, because its time is not older than the index file's. The plugin's copies of
// the index (the temporary index of a checkpoint, autoCommit's backup of the user's index) must
// keep that: found by the git-layer property test (a checkpoint held the file's old content).
import { execFileSync } from "node:child_process"
import { chmodSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commitStory } from "../../src/changes/auto-commit.js"
import { makeCheckpoint } from "../../src/checkpoints/checkpoint-git.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

/**
 * A repository whose index was written, a minute ago, in the same second as notes.txt, which was
 * then rewritten at the same size (its time set back to that second: an edit within it).
 */
function racyRepository(): string {
  const dir = tmp("racy-index-")
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.name", "The User")
  git(dir, "config", "user.email", "user@example.invalid")
  writeFileSync(join(dir, "notes.txt"), "first\n")
  git(dir, "add", "notes.txt")
  git(dir, "commit", "-q", "-m", "start")
  const second = Math.floor(Date.now() / 1000) - 60
  // git compares an entry's change time (ctime, which no one can set) to the second: the two
  // writes below are done again in the rare case that a second begins between them.
  for (let attempt = 0; ; attempt += 1) {
    writeFileSync(join(dir, "notes.txt"), "user 1\n")
    utimesSync(join(dir, "notes.txt"), second, second)
    git(dir, "add", "notes.txt")
    utimesSync(join(dir, ".git", "index"), second + 0.5, second + 0.5)
    const before = statSync(join(dir, "notes.txt")).ctimeMs
    writeFileSync(join(dir, "notes.txt"), "user 2\n")
    utimesSync(join(dir, "notes.txt"), second, second)
    if (Math.floor(before / 1000) === Math.floor(statSync(join(dir, "notes.txt")).ctimeMs / 1000) || attempt === 5)
      break
  }
  // git itself sees the change (diff-files: read-only, it leaves the index file as it is).
  expect(git(dir, "diff-files", "--name-only")).toBe("notes.txt\n")
  return dir
}

describe("a file rewritten at the same size in the second the index was written", () => {
  it("is in the checkpoint with its new content", async () => {
    const dir = racyRepository()
    const made = await makeCheckpoint(dir, "ses_racy", 0)
    expect(git(dir, "show", `${made?.commit}:notes.txt`)).toBe("user 2\n")
  })

  it("is still seen as changed after autoCommit puts the user's index back (a hook refused the commit)", async () => {
    const dir = racyRepository()
    const hook = join(dir, ".git", "hooks", "pre-commit")
    writeFileSync(hook, "#!/bin/sh\nexit 1\n")
    chmodSync(hook, 0o755)
    writeFileSync(join(dir, "story.txt"), "the story's work\n")
    await expect(commitStory(dir, ["story.txt"], "story S-1: first")).rejects.toThrow()
    expect(git(dir, "diff", "--name-only", "--", "notes.txt")).toBe("notes.txt\n")
  })
})
