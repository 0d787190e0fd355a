// Nothing the plugin or the `ralph-loop` command reads is opened unless it is a regular file: a FIFO
// in place of a state file, a journal, worktree.json or a plan would be waited on forever (status,
// clean, plan check hung; OpenCode frozen at start-up or in the worktree watch).
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../../src/cli/args.js"
import { clean } from "../../src/cli/clean.js"
import { enabledBySettings } from "../../src/config/enabled.js"
import { formatProblem, loadSettings } from "../../src/config/load.js"
import { planCheck } from "../../src/cli/plan-check.js"
import { readProjectLoops } from "../../src/status/read-project.js"
import { Journal, JOURNAL_LIMITS } from "../../src/store/journal.js"
import { LoopStore, type StoreProblem } from "../../src/store/loop-store.js"
import { readPlanFileSync } from "../../src/plan/plan-file.js"
import { readRegularFile, readRegularFileSync } from "../../src/files/regular-file.js"
import { readNewestLoops } from "../../src/store/saved-loops.js"
import { readWorktreeState } from "../../src/worktrees/worktree-file.js"
import { readWorktrees } from "../../src/worktrees/worktree-loops.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tempDir = tempDirs()
const DAY = 24 * 60 * 60 * 1000
const NOW = Date.now()
const LOOPS = ".opencode/ralph-loop/loops"

const fifo = (path: string): string => {
  mkdirSync(join(path, ".."), { recursive: true })
  execFileSync("mkfifo", [path])
  return path
}

/** A project with one loop that ended 40 days ago and a FIFO named as a state file beside it. */
async function projectWithFifoState(): Promise<string> {
  const project = tempDir("ralph-fifo-")
  await new LoopStore(project).save(
    loop({ id: "ses_old", sessionID: "ses_old", phase: "stopped", stopReason: "cancelled" }),
    "stopped",
    NOW - 40 * DAY,
  )
  fifo(join(project, LOOPS, "ses_fifo.json"))
  return project
}

describe("only regular files are read", () => {
  it("readRegularFile says what a FIFO, a folder, a link and a missing file are", async () => {
    const dir = tempDir("ralph-fifo-")
    const pipe = fifo(join(dir, "pipe"))
    writeFileSync(join(dir, "file"), "text")
    symlinkSync(join(dir, "file"), join(dir, "link"))
    expect(await readRegularFile(pipe)).toEqual({
      ok: false,
      reason: "not-a-file",
      message: "is a FIFO, not a regular file",
    })
    expect(readRegularFileSync(pipe)).toEqual({
      ok: false,
      reason: "not-a-file",
      message: "is a FIFO, not a regular file",
    })
    expect(await readRegularFile(dir)).toMatchObject({ ok: false, message: "is a folder, not a regular file" })
    expect(readRegularFileSync(join(dir, "link"))).toMatchObject({
      ok: false,
      message: "is a symbolic link, not a regular file",
    })
    expect(await readRegularFile(join(dir, "link"), { follow: true })).toEqual({ ok: true, text: "text" })
    expect(await readRegularFile(join(dir, "missing"))).toMatchObject({ ok: false, reason: "missing" })
  })

  it("ralph-loop status reads the loops beside a FIFO state file and a FIFO journal", async () => {
    const project = await projectWithFifoState()
    fifo(join(project, ".opencode/ralph-loop/journal-2020-01-01.jsonl"))
    const { loops } = await readProjectLoops(project)
    expect(loops.map((s) => s.loop.id)).toEqual(["ses_old"])
  })

  it("ralph-loop clean cleans beside a FIFO state file and leaves the FIFO alone", async () => {
    const project = await projectWithFifoState()
    const args = parseArgs(["clean"], project)
    if ("error" in args) throw new Error(args.error)
    const lines: string[] = []
    expect(await clean(args, { XDG_CONFIG_HOME: join(project, "no-global") }, (l) => lines.push(l), NOW)).toBe(0)
    expect(lines[0]).toMatch(/removed the files of 1 loop/)
    expect(readdirSync(join(project, LOOPS))).toEqual(["ses_fifo.json"])
  })

  it("ralph-loop plan check says a FIFO plan is not a regular file (exit 1); /ralph-status's read does not wait on it", async () => {
    const project = tempDir("ralph-fifo-")
    fifo(join(project, ".opencode/prd.json"))
    const args = parseArgs(["plan", "check"], project)
    if ("error" in args) throw new Error(args.error)
    const lines: string[] = []
    expect(
      await planCheck(args, undefined, { XDG_CONFIG_HOME: join(project, "no-global") }, (l) => lines.push(l)),
    ).toBe(1)
    expect(lines).toEqual(["ralph-loop plan check: the plan file .opencode/prd.json is a FIFO, not a regular file"])
    expect(readPlanFileSync(project, ".opencode/prd.json")).toMatchObject({ ok: false, reason: "unreadable" })
  })

  it("the worktree loops, /ralph-status's saved loops and the store at start-up pass a FIFO by", async () => {
    const project = await projectWithFifoState()
    const worktree = join(project, ".opencode/ralph-loop/worktrees/wt")
    fifo(join(worktree, LOOPS, "ses_w.json"))
    fifo(join(worktree, ".opencode/ralph-loop/worktree.json"))
    expect(readWorktreeState(worktree)).toBeUndefined()
    expect(await readWorktrees(project)).toEqual([
      { name: "wt", path: worktree, state: undefined, saved: undefined, launchCut: false },
    ])
    expect((await readNewestLoops(join(project, LOOPS), 10)).map((s) => s.loop.id)).toEqual(["ses_old"])

    const loaded = await new LoopStore(project).load(NOW)
    expect(loaded.loops.map((l) => l.id)).toEqual(["ses_old"])
    expect(loaded.problems).toEqual([
      expect.objectContaining({
        file: join(project, LOOPS, "ses_fifo.json"),
        message: expect.stringContaining("is damaged (it is a FIFO, not a regular file)"),
      }),
    ])
    expect(existsSync(join(project, LOOPS, "ses_fifo.json"))).toBe(false)
  })

  it("the journal in place of a FIFO: the store loads the loops beside it, says what it is, and a save is refused rather than waited on", async () => {
    const project = await projectWithFifoState()
    const journal = join(project, ".opencode/ralph-loop/journal.jsonl")
    rmSync(journal)
    fifo(journal)
    const problems: StoreProblem[] = []
    expect(await new Journal(join(project, ".opencode/ralph-loop"), project, JOURNAL_LIMITS).read(problems)).toEqual([])
    expect(problems).toEqual([{ file: journal, message: "is a FIFO, not a regular file (not read)" }])

    const store = new LoopStore(project)
    const loaded = await store.load(NOW)
    expect(loaded.loops.map((l) => l.id)).toEqual(["ses_old"])
    expect(loaded.problems).toContainEqual({ file: journal, message: "is a FIFO, not a regular file (not read)" })
    await expect(store.save(loop({ id: "ses_new", sessionID: "ses_new" }), "started", NOW)).rejects.toThrow(
      /not a regular file/,
    )
    // The state file's write has settled when the failure is told: nothing of the save writes after it
    // (it would make the folder again once the test removed it).
    expect(existsSync(join(project, LOOPS, "ses_new.json"))).toBe(true)
  })

  it("a settings file that is a FIFO is named and skipped, an opencode.json that is one skipped (OpenCode's to report); the other layers hold, and the boot switch reads past them", () => {
    const root = tempDir("ralph-fifo-")
    const directory = join(root, "project")
    const globalDir = join(root, "global")
    fifo(join(directory, ".opencode/ralph-loop.jsonc"))
    fifo(join(directory, "opencode.json"))
    mkdirSync(globalDir, { recursive: true })
    writeFileSync(join(globalDir, "ralph-loop.jsonc"), '{ "maxIterations": 7, "enabled": false }')
    const loaded = loadSettings({ directory, globalDir })
    expect(loaded.settings.maxIterations).toBe(7)
    expect(loaded.problems.map(formatProblem)).toEqual([
      ".opencode/ralph-loop.jsonc is a FIFO, not a regular file; the whole file is ignored",
    ])
    expect(enabledBySettings(directory, globalDir, undefined)).toBe(false)
  })
})
