// A worktree loop's instance shares the project's memory.md and progress.md with the project's own
// instance (and other worktrees') in one OpenCode process: which folder it uses, and that updates
// of one file from several stores are made one after another, none lost.
import { mkdirSync, readFileSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { entries, remember } from "../../src/memory/memory-file.js"
import { MemoryStore } from "../../src/memory/memory-store.js"
import { parseProgress } from "../../src/store/progress-log.js"
import { PROGRESS_FILE, ProgressFile } from "../../src/store/progress-file.js"
import { sharedFilesFolder } from "../../src/worktrees/shared-files.js"
import { worktreePath } from "../../src/worktrees/names.js"
import type { WorktreeState } from "../../src/worktrees/worktree-state.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const worktreeOf = (mainDirectory: string, name = "wt"): WorktreeState => ({
  name,
  branch: `ralph/${name}`,
  mainDirectory,
  base: { branch: "main", commit: "0".repeat(40) },
  mergeStrategy: "ff-or-branch",
  createdAt: 0,
})

/** A project folder with the worktree `name` in its place. */
function projectWithWorktree(name = "wt"): { project: string; worktree: string } {
  const project = tempDir("ralph-shared-")
  const worktree = worktreePath(project, name)
  mkdirSync(worktree, { recursive: true })
  return { project, worktree }
}

describe("the project's memory and progress log, shared by its instances", () => {
  it("two memory stores on one project (its instance and a worktree's): concurrent updates are all kept", async () => {
    const dir = tempDir("ralph-shared-")
    const project = new MemoryStore(dir, () => undefined)
    const worktree = new MemoryStore(dir, () => undefined)
    const texts = Array.from({ length: 12 }, (_, i) => `note ${i}`)
    await Promise.all(
      texts.map((text, i) =>
        (i % 2 ? worktree : project).update((m) =>
          remember(m, "working", { text, source: "remember", date: "2026-11-23" }, 50),
        ),
      ),
    )
    expect(
      entries(await project.read(), "working")
        .map((e) => e.text)
        .sort(),
    ).toEqual([...texts].sort())
  })

  it("two progress files on one project: concurrent appends are all kept", async () => {
    const dir = tempDir("ralph-shared-")
    const logs = [new ProgressFile(dir), new ProgressFile(dir)]
    const loops = Array.from({ length: 12 }, (_, i) => `ses_${i}`)
    await Promise.all(
      loops.map((loopID, i) =>
        logs[i % 2]?.append({
          at: Date.UTC(2026, 10, 23),
          loopID,
          task: `task of ${loopID}`,
          iteration: 1,
          decision: { type: "restart", fresh: false },
          files: [],
          failingChecks: [],
          learnings: [],
        }),
      ),
    )
    const logged = parseProgress(readFileSync(join(dir, PROGRESS_FILE), "utf8")).entries
    expect(loops.filter((id) => logged.some((e) => e.includes(`- Loop: ${id} `)))).toEqual(loops)
    expect(logged).toHaveLength(loops.length)
  })

  it("a project's instance uses its own folder", async () => {
    const dir = tempDir("ralph-shared-")
    expect(await sharedFilesFolder(dir, undefined)).toEqual({ directory: dir })
  })

  it("a worktree's instance uses the project it was made from, as the project spells its path", async () => {
    const { project, worktree } = projectWithWorktree()
    expect(await sharedFilesFolder(worktree, worktreeOf(project))).toEqual({ directory: project })
    // The instance may be given the worktree by another path to the same folder.
    const link = join(tempDir("ralph-link-"), "wt")
    symlinkSync(worktree, link)
    expect(await sharedFilesFolder(link, worktreeOf(project))).toEqual({ directory: project })
  })

  it("a worktree whose project is not where worktree.json says keeps its own memory, and says why", async () => {
    const { project, worktree } = projectWithWorktree()
    const gone = join(project, "moved-away")
    expect(await sharedFilesFolder(worktree, worktreeOf(gone))).toEqual({
      directory: worktree,
      problem: `this worktree keeps its own project memory and progress log: its project ${gone} cannot be read, or has no worktree wt`,
    })
    // Another project that has a worktree of that name: not this one's.
    const other = projectWithWorktree()
    expect(await sharedFilesFolder(worktree, worktreeOf(other.project))).toEqual({
      directory: worktree,
      problem: `this worktree keeps its own project memory and progress log: its project ${other.project} has another folder as its worktree wt`,
    })
    expect(await sharedFilesFolder(worktree, worktreeOf("relative/project"))).toEqual({
      directory: worktree,
      problem:
        "this worktree keeps its own project memory and progress log: its project relative/project is not an absolute path",
    })
  })
})
