// Sequences the git-layer property test (test/property/git-layer.property.test.ts) found broken,
// played deterministically on real repositories.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { commitLoopWork } from "../../src/actions/auto-commit.js"
import { snapshotWorkTree } from "../../src/actions/work-tree.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

function repo(): string {
  const dir = tmp("git-layer-")
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.name", "The User")
  git(dir, "config", "user.email", "user@example.invalid")
  writeFileSync(join(dir, "app.ts"), "app\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

async function loopStart(dir: string) {
  const start = await snapshotWorkTree(dir)
  return { startHead: start?.head, startTree: start?.tree }
}

describe("autoCommit after the agent's own git commands", () => {
  it("commits a file the agent removed with git rm (its deletion staged already) with the rest of its work", async () => {
    const dir = repo()
    const loop = await loopStart(dir)
    git(dir, "rm", "-q", "app.ts")
    writeFileSync(join(dir, "new.ts"), "new\n")
    const result = await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")
    expect(result).toMatchObject({ files: 2 })
    expect(git(dir, "show", "--name-status", "--format=", "HEAD")).toBe("D\tapp.ts\nA\tnew.ts\n")
    expect(git(dir, "status", "--porcelain")).toBe("")
  })

  it("commits a file the agent renamed with git mv as a rename: the old name's deletion too, nothing left staged", async () => {
    const dir = repo()
    const loop = await loopStart(dir)
    git(dir, "mv", "app.ts", "lib.ts")
    const result = await commitLoopWork(dir, loop, [".opencode/"], "story S-1: first")
    expect(result).toMatchObject({ files: 2 })
    expect(git(dir, "ls-tree", "--name-only", "HEAD")).toBe("lib.ts\n")
    expect(git(dir, "status", "--porcelain")).toBe("")
  })
})
