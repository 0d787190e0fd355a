// Merging a loop's branch needs git ≥ 2.38 (`merge-tree --write-tree`); Ubuntu 22.04 ships 2.34.
// The version's reading and the decision as pure code; then, with a git on PATH that says it is
// 2.34.1 (the rest passed to the real one), what the merge, `plan merge` and `doctor` say.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { conflictsOf } from "../../src/worktrees/worktree-git.js"
import { parseArgs } from "../../src/cli/args.js"
import { doctor } from "../../src/cli/doctor.js"
import { planMerge } from "../../src/cli/plan-merge.js"
import { GitVersionError, hasMergeTree, tooOldToMerge, parseGitVersion } from "../../src/git/version.js"
import { fakeGit } from "./fake-git.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const withGit = fakeGit()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
const GIT_2_34 = `*" --version "*) echo "git version 2.34.1"; exit 0 ;;`

describe("git's version", () => {
  it("is read from `git --version` as git words it on Linux, macOS and Windows", () => {
    expect(parseGitVersion("git version 2.34.1\n")).toEqual({ major: 2, minor: 34, text: "2.34.1" })
    expect(parseGitVersion("git version 2.39.3 (Apple Git-146)")).toEqual({
      major: 2,
      minor: 39,
      text: "2.39.3 (Apple Git-146)",
    })
    expect(parseGitVersion("git version 2.41.0.windows.1")).toEqual({ major: 2, minor: 41, text: "2.41.0.windows.1" })
    expect(parseGitVersion("git version 3.0")).toEqual({ major: 3, minor: 0, text: "3.0" })
    for (const other of ["", "hub version 2.14.2", "git version x.y", "git version 2"])
      expect(parseGitVersion(other)).toBeUndefined()
  })

  it("2.38 and later can merge a loop's branch; an older one is said with both versions", () => {
    const v = (text: string) => parseGitVersion(`git version ${text}`) ?? expect.fail(text)
    expect(["2.38.0", "2.39.5", "2.43.0", "3.0.0"].map((t) => hasMergeTree(v(t)))).toEqual([true, true, true, true])
    expect(["2.34.1", "2.37.9", "1.99.0"].map((t) => hasMergeTree(v(t)))).toEqual([false, false, false])
    expect(tooOldToMerge(v("2.38.0"))).toBeUndefined()
    expect(tooOldToMerge(v("2.34.1"))).toBe(
      "git 2.34.1 is too old to merge a loop's branch: `git merge-tree --write-tree` needs git 2.38 or later (update git)",
    )
  })
})

describe("a git older than 2.38 on PATH", () => {
  function repoWithStory(): string {
    const dir = tmp("git-old-")
    git(dir, "init", "-q", "-b", "main")
    git(dir, "config", "user.name", "The User")
    git(dir, "config", "user.email", "user@example.invalid")
    writeFileSync(join(dir, "plan.json"), JSON.stringify({ userStories: [{ id: "s1", title: "one", passes: false }] }))
    writeFileSync(join(dir, "a.txt"), "a\n")
    git(dir, "add", ".")
    git(dir, "commit", "-q", "-m", "start")
    git(dir, "switch", "-q", "-c", "ralph/story-s1")
    writeFileSync(join(dir, "a.txt"), "the story's work\n")
    git(dir, "commit", "-q", "-am", "story s1: work")
    git(dir, "switch", "-q", "main")
    return dir
  }

  it("the first merge-tree is refused with a GitVersionError naming the version found and the one needed", async () => {
    const dir = repoWithStory()
    withGit(tmp("fake-git-"), GIT_2_34)
    const refused = conflictsOf(dir, "ralph/story-s1")
    await expect(refused).rejects.toThrow(GitVersionError)
    await expect(refused).rejects.toThrow(
      "git 2.34.1 is too old to merge a loop's branch: `git merge-tree --write-tree` needs git 2.38 or later",
    )
  })

  it("`plan merge` merges nothing and says why (exit 1), the branch and the plan left as they were", async () => {
    const dir = repoWithStory()
    withGit(tmp("fake-git-"), GIT_2_34)
    const args = parseArgs(["plan", "merge", "plan.json", "--project", dir], dir)
    if ("error" in args) throw new Error(args.error)
    const lines: string[] = []
    const notes: string[] = []
    const code = await planMerge(
      args,
      ["plan.json"],
      { XDG_CONFIG_HOME: join(dir, "no-global") },
      (l) => lines.push(l),
      (l) => notes.push(l),
    )
    expect(code).toBe(1)
    expect(notes).toEqual([
      "ralph-loop plan merge: nothing merged: git 2.34.1 is too old to merge a loop's branch: `git merge-tree --write-tree` needs git 2.38 or later (update git)",
    ])
    expect(git(dir, "rev-list", "--count", "main..ralph/story-s1")).toBe("1")
    expect(git(dir, "status", "--porcelain")).toBe("")
  })

  it("`doctor` warns, naming what fails", async () => {
    const dir = tmp("git-old-doctor-")
    withGit(tmp("fake-git-"), GIT_2_34)
    const args = parseArgs(["doctor", "--project", dir], dir)
    if ("error" in args) throw new Error(args.error)
    const lines: string[] = []
    await doctor(args, { XDG_CONFIG_HOME: join(dir, "config"), PATH: "" }, (l) => lines.push(l))
    expect(lines).toContain(
      'warn  git 2.34.1 is too old to merge a loop\'s branch: `git merge-tree --write-tree` needs git 2.38 or later (update git); the worktree strategy "merge" and `ralph-loop plan merge` fail; the rest works',
    )
  })
})
