// Worktree loops where git and the project's folder meet at an edge, on real repositories: a project
// reached through a symlink (git answers with real paths), `ralph-loop clean` and the files git
// ignores in a worktree, and a clean whose checkpoint listing git fails.
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  createWorktree,
  listWorktreeFolders,
  reclaimWorktree,
  removeWorktree,
} from "../../src/worktrees/worktree-git.js"
import { parseArgs, type CliArgs } from "../../src/cli/args.js"
import { clean } from "../../src/cli/clean.js"
import { cleanWorktrees, worktrees } from "../../src/cli/worktrees.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { writeWorktreeState } from "../../src/worktrees/worktree-file.js"
import { fakeGit } from "./fake-git.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"
import { git, makeRepo } from "../git-fixture.js"

const tmp = tempDirs()
const withGit = fakeGit()
const DAY = 24 * 60 * 60 * 1000
const NOW = Date.now()

function repo(): string {
  return makeRepo(tmp("wt-edge-"), { "a.txt": "a\n", ".gitignore": ".env\nbuild/\n" })
}

function argsOf(command: string, project: string, extra: string[] = []): CliArgs {
  const args = parseArgs([command, "--project", project, ...extra], project)
  if ("error" in args) throw new Error(args.error)
  return args
}

/** A worktree loop `name` whose loop ended `daysAgo` days ago. */
async function endedWorktreeLoop(main: string, name: string, daysAgo: number): Promise<string> {
  const { path, base } = await createWorktree(main, name, false)
  await writeWorktreeState(path, {
    name,
    branch: `ralph/${name}`,
    mainDirectory: main,
    base,
    mergeStrategy: "ff-or-branch",
    createdAt: 0,
  })
  const ended = loop({ id: `ses_${name}`, sessionID: `ses_${name}`, phase: "stopped", stopReason: "cancelled" })
  await new LoopStore(path).save(ended, "stopped", NOW - daysAgo * DAY)
  return path
}

describe("a slot's folder a cut start left (no worktree.json: its branch is not known)", () => {
  const slot = (main: string) => join(main, ".opencode/ralph-loop/worktrees/slot-1")

  it("is reclaimed from the ralph/ branch git lists it on, which goes with it once it holds nothing", async () => {
    const main = repo()
    git(main, "worktree", "add", "-q", "-b", "ralph/story-b", slot(main))
    expect(await reclaimWorktree(main, "slot-1", undefined, undefined)).toEqual({ ok: true })
    expect(existsSync(slot(main))).toBe(false)
    expect(git(main, "branch", "--list", "ralph/*")).toBe("")
  })

  it("is never taken on a branch of the user's (outside ralph/), even one with nothing of its own", async () => {
    const main = repo()
    git(main, "worktree", "add", "-q", "-b", "feature", slot(main))
    expect(await reclaimWorktree(main, "slot-1", undefined, undefined)).toEqual({
      ok: false,
      why: "it is not on a branch of ralph-loop (ralph/…)",
    })
    expect(existsSync(slot(main))).toBe(true)
    expect(git(main, "branch", "--list", "feature")).toContain("feature")
  })
})

describe("ralph-loop clean of a parallel run's slot (its branch is its last story's, ralph/story-<id>)", () => {
  /** A slot left settled 40 days ago by a run that did not remove it (stopped, say), its story `story`'s loop ended. */
  async function leftSlot(main: string, name: string, story: string, merge: "merged" | "kept"): Promise<string> {
    const branch = `ralph/story-${story}`
    const { path, base } = await createWorktree(main, name, false, undefined, branch)
    await writeWorktreeState(path, {
      name,
      branch,
      mainDirectory: main,
      base,
      mergeStrategy: "merge",
      createdAt: 0,
      slot: true,
      story,
      merge: { result: merge, detail: "its outcome" },
    })
    const ended = loop({ id: `ses_${name}`, sessionID: `ses_${name}`, phase: "stopped", stopReason: "completed" })
    await new LoopStore(path).save(ended, "stopped", NOW - 40 * DAY)
    // Merged: the slot was parked (HEAD detached, the merged branch deleted).
    if (merge === "merged") {
      git(path, "switch", "-q", "--detach")
      git(main, "branch", "-d", branch)
    }
    return path
  }

  it("removes it with its story's branch, or without one once that was merged and deleted; its files under the story's name", async () => {
    const main = repo()
    const kept = await leftSlot(main, "slot-1", "a", "kept")
    const parked = await leftSlot(main, "slot-2", "b", "merged")

    const lines: string[] = []
    const code = await cleanWorktrees(argsOf("clean", main), (line) => lines.push(line), NOW)
    expect(code).toBe(0)
    expect(lines).toEqual([
      "ralph-loop clean: removed the worktree slot-1 and its branch ralph/story-a; its loop's files are kept in " +
        ".opencode/ralph-loop/merged/story-a/",
      "ralph-loop clean: removed the worktree slot-2 (its branch ralph/story-b was merged and deleted); its loop's " +
        "files are kept in .opencode/ralph-loop/merged/story-b/",
    ])
    expect([existsSync(kept), existsSync(parked)]).toEqual([false, false])
    expect(git(main, "branch", "--list", "ralph/*")).toBe("")
  })
})

describe("a project reached through a symlink", () => {
  it("makes, lists, reclaims and removes its worktrees (git's real paths against the link's)", async () => {
    const real = repo()
    const link = join(tmp("wt-link-"), "project")
    symlinkSync(real, link)

    const made = await createWorktree(link, "via-link", false)
    await createWorktree(link, "other", false)
    expect(made.path).toBe(join(link, ".opencode/ralph-loop/worktrees/via-link"))
    expect((await listWorktreeFolders(link)).map((w) => [w.name, w.branch])).toEqual([
      ["other", "ralph/other"],
      ["via-link", "ralph/via-link"],
    ])
    expect(await reclaimWorktree(link, "other", made.base.commit, "ralph/other")).toEqual({ ok: true })
    await removeWorktree(link, "via-link")
    expect(await listWorktreeFolders(link)).toEqual([])
    expect(git(real, "branch", "--list", "ralph/*")).toBe("")
  })

  it("`ralph-loop worktrees` names the worktree git lists whose folder is gone", async () => {
    const real = repo()
    const link = join(tmp("wt-link-"), "project")
    symlinkSync(real, link)
    git(real, "worktree", "add", "-q", "-b", "ralph/gone", join(real, ".opencode/ralph-loop/worktrees/gone"))
    rmSync(join(real, ".opencode/ralph-loop/worktrees/gone"), { recursive: true })

    const lines: string[] = []
    expect(await worktrees(argsOf("worktrees", link), (line) => lines.push(line))).toBe(0)
    expect(lines).toEqual(["- gone · git lists it, but its folder is gone (git worktree prune forgets it)"])
  })
})

describe("ralph-loop clean and the files git ignores in a worktree", () => {
  it("keeps a worktree that holds ignored files the loop made (an .env, build output), naming them; --force removes it", async () => {
    const main = repo()
    const path = await endedWorktreeLoop(main, "env-wt", 40)
    writeFileSync(join(path, ".env"), "SECRET=the loop's\n")

    const lines: string[] = []
    expect(await cleanWorktrees(argsOf("clean", main), (line) => lines.push(line), NOW)).toBe(0)
    expect(lines).toEqual([
      "ralph-loop clean: kept the worktree env-wt: files not in its commit (ignored ones included): .env (--force removes it anyway)",
    ])
    expect(readFileSync(join(path, ".env"), "utf8")).toBe("SECRET=the loop's\n")

    const forced: string[] = []
    expect(await cleanWorktrees(argsOf("clean", main, ["--force"]), (line) => forced.push(line), NOW)).toBe(0)
    expect(forced[0]).toMatch(/^ralph-loop clean: removed the worktree env-wt and its branch ralph\/env-wt/)
    expect(existsSync(path)).toBe(false)
  })

  it("removes a worktree that holds nothing beyond its commit (the loop's own files aside)", async () => {
    const main = repo()
    const path = await endedWorktreeLoop(main, "tidy-wt", 40)

    const lines: string[] = []
    expect(await cleanWorktrees(argsOf("clean", main), (line) => lines.push(line), NOW)).toBe(0)
    expect(lines[0]).toMatch(/^ralph-loop clean: removed the worktree tidy-wt/)
    expect(existsSync(path)).toBe(false)
  })
})

describe("ralph-loop clean when git cannot list a loop's checkpoints", () => {
  it("keeps the loop's state file for the next clean, says why, and exits 1", async () => {
    const main = repo()
    const ended = loop({ id: "ses_old", sessionID: "ses_old", phase: "stopped", stopReason: "cancelled" })
    await new LoopStore(main).save(ended, "stopped", NOW - 40 * DAY)
    git(main, "update-ref", "refs/ralph/ses_old/0", "HEAD")
    withGit(tmp("fake-git-"), `*" for-each-ref "*) echo "fatal: cannot read the refs" >&2; exit 128 ;;`)

    const lines: string[] = []
    expect(
      await clean(argsOf("clean", main), { XDG_CONFIG_HOME: join(main, "no-global") }, (line) => lines.push(line), NOW),
    ).toBe(1)
    expect(lines).toContain(
      "ralph-loop clean: could not remove the checkpoints of loop ses_old, so its files stay for the next clean: the checkpoints could not be listed (git for-each-ref: fatal: cannot read the refs)",
    )
    expect(existsSync(join(main, ".opencode/ralph-loop/loops/ses_old.json"))).toBe(true)
  })
})
