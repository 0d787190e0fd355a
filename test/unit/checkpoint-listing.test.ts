// A listing of a loop's checkpoints that git fails is loud, never "none": the save before a rollback
// was numbered 0 then and wrote over the start checkpoint. On a real repository, with a git that
// fails `for-each-ref` (and only that) in front of the real one.
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  listCheckpoints,
  loopsWithCheckpoints,
  makeCheckpoint,
  saveBeforeRollback,
} from "../../src/checkpoints/checkpoint-git.js"
import { CheckpointListError } from "../../src/checkpoints/checkpoints.js"
import { fakeGit } from "./fake-git.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const withGit = fakeGit()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

const FOR_EACH_REF_FAILS = `*" for-each-ref "*) echo "fatal: cannot read the refs" >&2; exit 128 ;;`

function repo(): string {
  const dir = tmp("ckpt-list-")
  git(dir, "init", "-q", "-b", "main")
  writeFileSync(join(dir, "app.ts"), "start\n")
  git(dir, "add", ".")
  git(dir, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "-m", "start")
  return dir
}

describe("a checkpoint listing git fails", () => {
  it("throws a CheckpointListError, and the save before a rollback leaves the start checkpoint as it was", async () => {
    const dir = repo()
    const start = await makeCheckpoint(dir, "ses_a", 0)
    writeFileSync(join(dir, "app.ts"), "the loop's work\n")
    const bin = tmp("fake-git-")
    withGit(bin, FOR_EACH_REF_FAILS)

    await expect(listCheckpoints(dir, "ses_a")).rejects.toThrow(CheckpointListError)
    await expect(loopsWithCheckpoints(dir)).rejects.toThrow(
      /the checkpoints could not be listed \(git for-each-ref: fatal: cannot read the refs\)/,
    )
    await expect(saveBeforeRollback(dir, "ses_a")).rejects.toThrow(CheckpointListError)
    expect(git(dir, "rev-parse", "refs/ralph/ses_a/0").trim()).toBe(start?.commit)
  })

  it("outside a git repository there are none (that is no failure)", async () => {
    const dir = tmp("ckpt-nogit-")
    mkdirSync(join(dir, "sub"))
    expect(await listCheckpoints(join(dir, "sub"), "ses_a")).toEqual([])
    expect(await loopsWithCheckpoints(dir)).toEqual([])
  })
})
