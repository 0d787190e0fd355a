// `ralph-loop clean` on real folders and repositories: what it removes of ended loops (only folders
// no other loop uses, only inside the plugin's own folders, never through a link), worktree loops
// (by --days, their files kept in merged/<NAME>/ first, never one git cannot tell about), merged
// archives and their checkpoint refs, and what it says when something could not be removed.
import { execFileSync, spawnSync } from "node:child_process"
import {
  existsSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { createWorktree } from "../../src/worktrees/worktree-git.js"
import { parseArgs, type CliArgs } from "../../src/cli/args.js"
import { clean } from "../../src/cli/clean.js"
import { cleanWorktrees } from "../../src/cli/worktrees.js"
import { htmlReportFile } from "../../src/store/report.js"
import type { Loop } from "../../src/loop/loop.js"
import { LoopStore, stateText } from "../../src/store/loop-store.js"
import { writeWorktreeState } from "../../src/worktrees/worktree-file.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"
import { git, makeRepo } from "../git-fixture.js"

const tempDir = tempDirs()
const DAY = 24 * 60 * 60 * 1000
const NOW = Date.now()
const LOOPS = ".opencode/ralph-loop/loops"

function argsOf(project: string, extra: string[] = []): CliArgs {
  const args = parseArgs(["clean", "--project", project, ...extra], project)
  if ("error" in args) throw new Error(args.error)
  return args
}

/** `ralph-loop clean` as main.ts runs it: the loops' files, then the worktrees. */
async function runClean(project: string, extra: string[] = []): Promise<{ code: number; lines: string[] }> {
  const args = argsOf(project, extra)
  const lines: string[] = []
  const code = await clean(args, { XDG_CONFIG_HOME: join(project, "no-global") }, (l) => lines.push(l), NOW)
  const worktreesCode = await cleanWorktrees(args, (l) => lines.push(l), NOW)
  return { code: code || worktreesCode, lines }
}

const ended = (overrides: Partial<Loop>, settings: Partial<Loop["settings"]> = {}): Loop =>
  loop({ phase: "stopped", stopReason: "cancelled", ...overrides }, settings)

async function save(directory: string, l: Loop, daysAgo: number): Promise<void> {
  await new LoopStore(directory).save(l, l.phase === "stopped" ? "stopped" : "started", NOW - daysAgo * DAY)
}

function sessionFolder(project: string, id: string, root = ".opencode/sessions"): string {
  const dir = join(project, root, id)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "ralph_summary.md"), `summary of ${id}`)
  return dir
}

function repo(): string {
  return makeRepo(tempDir("ralph-clean-repo-"), { "a.txt": "a\n" })
}

/** A worktree loop `name` whose loop `id` ended `daysAgo` days ago, with a transcript in its session folder. */
async function worktreeLoop(main: string, name: string, id: string, daysAgo: number): Promise<string> {
  const { path, base } = await createWorktree(main, name, false)
  await writeWorktreeState(path, {
    name,
    branch: `ralph/${name}`,
    mainDirectory: main,
    base,
    mergeStrategy: "ff-or-branch",
    createdAt: 0,
  })
  await save(path, ended({ id, sessionID: id }), daysAgo)
  writeFileSync(join(sessionFolder(path, id), "transcript.json"), `{"sessionID":"${id}"}`)
  return path
}

describe("ralph-loop clean: session folders", () => {
  it("keeps the folders of a lineage that a newer loop (running, or ended recently) still refers to", async () => {
    const project = tempDir("ralph-clean-")
    // The old loop went from ses_a to ses_b to ses_c and ended; a new loop was started in ses_c.
    await save(project, ended({ id: "ses_a", lineage: ["ses_a", "ses_b"], sessionID: "ses_c" }), 40)
    await save(project, loop({ id: "ses_c", lineage: ["ses_c"], sessionID: "ses_d", phase: "running" }), 40)
    await save(project, ended({ id: "ses_x", lineage: ["ses_x"], sessionID: "ses_y" }), 40)
    await save(project, ended({ id: "ses_y", sessionID: "ses_y" }), 2)
    for (const id of ["ses_a", "ses_b", "ses_c", "ses_d", "ses_x", "ses_y"]) sessionFolder(project, id)

    const { code, lines } = await runClean(project)
    expect(code).toBe(0)
    expect(readdirSync(join(project, ".opencode/sessions")).sort()).toEqual(["ses_c", "ses_d", "ses_y"])
    expect(readdirSync(join(project, LOOPS)).sort()).toEqual(["ses_c.json", "ses_y.json"])
    expect(lines[0]).toMatch(/removed the files of 2 loops that ended more than 30 days ago/)
  })
})

describe("ralph-loop clean: a loop whose state file is damaged (issue 47)", () => {
  it("keeps the folders its journal lines name: OpenCode rebuilds it from the journal at its next start", async () => {
    const project = tempDir("ralph-clean-")
    // The old loop ended in ses_c 40 days ago; a new loop started in ses_c runs on, but its state file is damaged.
    await save(project, ended({ id: "ses_a", lineage: ["ses_a", "ses_b"], sessionID: "ses_c" }), 40)
    await save(project, loop({ id: "ses_c", lineage: ["ses_c"], sessionID: "ses_d", phase: "running" }), 40)
    writeFileSync(join(project, LOOPS, "ses_c.json"), '{"schemaVersion": 1, "loop": {"id": "ses_c"')
    for (const id of ["ses_a", "ses_b", "ses_c", "ses_d"]) sessionFolder(project, id)

    const { code, lines } = await runClean(project)
    expect(code, lines.join("\n")).toBe(0)
    expect(readdirSync(join(project, ".opencode/sessions")).sort()).toEqual(["ses_c", "ses_d"])
    expect(readdirSync(join(project, LOOPS)).sort()).toEqual(["ses_c.json"])
    // And what the store rebuilds from the journal is that loop, with those sessions.
    const loaded = await new LoopStore(project).load(NOW)
    expect(loaded.rebuilt).toEqual(["ses_c"])
    expect(loaded.loops.map((l) => [l.id, l.sessionID, l.lineage])).toEqual([["ses_c", "ses_d", ["ses_c"]]])
  })
})

describe("ralph-loop clean: a loop that ended moments ago", () => {
  it("keeps its files with --days 0 until its report is written (OpenCode writes it after the end)", async () => {
    const project = tempDir("ralph-clean-")
    const just = ended({ id: "ses_just", sessionID: "ses_just" })
    await save(project, just, 1 / DAY) // a millisecond ago
    sessionFolder(project, "ses_just")

    const first = await runClean(project, ["--days", "0"])
    expect(first.lines).toContain(
      "ralph-loop clean: kept the files of loop ses_just: it ended moments ago and OpenCode is still writing its report",
    )
    expect(readdirSync(join(project, LOOPS))).toEqual(["ses_just.json"])
    writeFileSync(htmlReportFile(project, { loop: just, savedAt: NOW - 1 }), "<html></html>\n")
    const second = await runClean(project, ["--days", "0"])
    expect(second.lines[0]).toMatch(/removed the files of 1 loop that ended more than 0 days ago/)
    expect(existsSync(join(project, LOOPS, "ses_just.json"))).toBe(false)
  })
})

describe("ralph-loop clean: only the plugin's own folders, never through a link", () => {
  it("leaves a folder alone that a linked sessions folder, or a state file's summaryPath, leads to", async () => {
    const project = tempDir("ralph-clean-")
    const elsewhere = tempDir("ralph-clean-elsewhere-")
    // .opencode/sessions is a link to a folder outside the plugin's.
    mkdirSync(join(project, ".opencode"), { recursive: true })
    symlinkSync(elsewhere, join(project, ".opencode/sessions"))
    sessionFolder(elsewhere, "ses_linked", ".")
    await save(project, ended({ id: "ses_linked", sessionID: "ses_linked" }), 40)
    // A damaged state file names the user's own src/ as its summaryPath.
    const code = join(project, "src/ses_src")
    mkdirSync(code, { recursive: true })
    writeFileSync(join(code, "index.ts"), "export const work = 1\n")
    await save(project, ended({ id: "ses_src", sessionID: "ses_src" }, { summaryPath: "src" }), 40)

    const result = await runClean(project)
    expect(readFileSync(join(elsewhere, "ses_linked/ralph_summary.md"), "utf8")).toBe("summary of ses_linked")
    expect(readFileSync(join(code, "index.ts"), "utf8")).toBe("export const work = 1\n")
    expect(result.lines).toContainEqual(
      expect.stringContaining(
        `left the session folder ${join(project, "src/ses_src")} alone: it is not inside the plugin's own folders`,
      ),
    )
    expect(result.lines).toContainEqual(
      expect.stringContaining(`left the session folder ${join(project, ".opencode/sessions/ses_linked")} alone`),
    )
    expect(result.code).toBe(0)
  })

  it("does not remove state files from a loops folder that is a link out of the project", async () => {
    const project = tempDir("ralph-clean-")
    const elsewhere = tempDir("ralph-clean-elsewhere-")
    writeFileSync(
      join(elsewhere, "ses_far.json"),
      stateText(ended({ id: "ses_far", sessionID: "ses_far" }), NOW - 40 * DAY),
    )
    mkdirSync(join(project, ".opencode/ralph-loop"), { recursive: true })
    symlinkSync(elsewhere, join(project, LOOPS))

    const { lines } = await runClean(project)
    expect(readdirSync(elsewhere)).toEqual(["ses_far.json"])
    expect(lines).toContainEqual(expect.stringContaining("the folder leads outside the plugin's own folders"))
  })

  it("removes a dangling link of a damaged state file moved aside long ago, and goes on", async () => {
    const project = tempDir("ralph-clean-")
    await save(project, ended({ id: "ses_old", sessionID: "ses_old" }), 40)
    const link = join(project, LOOPS, "ses_gone.json.corrupt-2020-01-01T00-00-00-000Z")
    symlinkSync(join(project, "nowhere"), link)
    lutimesSync(link, (NOW - 40 * DAY) / 1000, (NOW - 40 * DAY) / 1000)
    const recent = join(project, LOOPS, "ses_new.json.corrupt-2030-01-01T00-00-00-000Z")
    writeFileSync(recent, "{")

    const { code, lines } = await runClean(project)
    expect(code).toBe(0)
    expect(readdirSync(join(project, LOOPS))).toEqual(["ses_new.json.corrupt-2030-01-01T00-00-00-000Z"])
    expect(lines[0]).toMatch(/removed the files of 1 loop that ended/)
  })
})

/** Makes `dir`'s entries impossible to remove (root ignores modes: the immutable flag then); returns the undo. */
function unremovable(dir: string): () => void {
  if (process.getuid?.() === 0) {
    execFileSync("chattr", ["+i", dir])
    return () => execFileSync("chattr", ["-i", dir])
  }
  execFileSync("chmod", ["a-w", dir])
  return () => execFileSync("chmod", ["u+w", dir])
}

describe("ralph-loop clean: what it says", () => {
  it("says what could not be removed and why, keeps the loop's state file for the next try, and exits 1", async () => {
    const project = tempDir("ralph-clean-")
    await save(project, ended({ id: "ses_ro", sessionID: "ses_ro" }), 40)
    await save(project, ended({ id: "ses_ok", sessionID: "ses_ok" }), 40)
    const stuck = sessionFolder(project, "ses_ro")
    sessionFolder(project, "ses_ok")
    const undo = unremovable(stuck)
    try {
      const { code, lines } = await runClean(project)
      expect(code).toBe(1)
      expect(lines[0]).toMatch(/removed the files of 1 loop that ended more than 30 days ago/)
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`could not remove the session folder ${stuck.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: E[A-Z]+`),
        ),
      )
      expect(lines).toContainEqual(
        "ralph-loop clean: kept the state file of loop ses_ro, so that the next clean tries again",
      )
    } finally {
      undo()
    }
    expect(existsSync(join(stuck, "ralph_summary.md"))).toBe(true)
    expect(readdirSync(join(project, LOOPS))).toEqual(["ses_ro.json"])
    expect(existsSync(join(project, ".opencode/sessions/ses_ok"))).toBe(false)
  })

  it("a --days that is not a number is a usage error; --days 0 is allowed", () => {
    const cwd = tempDir("ralph-clean-args-")
    expect(parseArgs(["clean", "--days", ""], cwd)).toEqual({
      error: '--days needs a number of days (0 or more), not ""',
    })
    expect(parseArgs(["clean", "--days="], cwd)).toEqual({ error: '--days needs a number of days (0 or more), not ""' })
    expect(parseArgs(["clean", "--days", " 3"], cwd)).toHaveProperty("error")
    expect(parseArgs(["clean", "--days", "-1"], cwd)).toHaveProperty("error")
    expect(parseArgs(["clean", "--days"], cwd)).toHaveProperty("error")
    expect(parseArgs(["clean", "--days", "0"], cwd)).toMatchObject({ days: 0 })
    expect(parseArgs(["clean", "--days=1.5"], cwd)).toMatchObject({ days: 1.5 })
  })
})

describe("ralph-loop clean: worktree loops", () => {
  it("removes only those ended more than --days ago, their loop's files (transcripts included) kept in merged/<NAME>/ first", async () => {
    const main = repo()
    const old = await worktreeLoop(main, "old-wt", "ses_old", 40)
    const recent = await worktreeLoop(main, "new-wt", "ses_new", 2)
    // Uncommitted work in both: --force removes the old one anyway, never the recent one.
    writeFileSync(join(old, "a.txt"), "changed\n")
    writeFileSync(join(recent, "a.txt"), "changed\n")

    const { code, lines } = await runClean(main, ["--force"])
    expect(code).toBe(0)
    expect(lines).toContain(
      "ralph-loop clean: removed the worktree old-wt and its branch ralph/old-wt; its loop's files are kept in .opencode/ralph-loop/merged/old-wt/",
    )
    expect(lines).toContain(
      "ralph-loop clean: kept the worktree new-wt: its loop ended less than 30 days ago (--days 0 removes it)",
    )
    expect(existsSync(old)).toBe(false)
    expect(existsSync(recent)).toBe(true)
    const archive = join(main, ".opencode/ralph-loop/merged/old-wt/.opencode")
    expect(readFileSync(join(archive, "sessions/ses_old/transcript.json"), "utf8")).toBe('{"sessionID":"ses_old"}')
    expect(readdirSync(join(archive, "ralph-loop/loops"))).toEqual(["ses_old.json"])
  })

  it("removes a worktree whose start OpenCode's stop cut off (its launcher's process is gone, no loop saved); one whose launcher still runs is left alone", async () => {
    const main = repo()
    const launched = async (name: string, pid: number) => {
      const { path, base } = await createWorktree(main, name, false)
      await writeWorktreeState(path, {
        name,
        branch: `ralph/${name}`,
        mainDirectory: main,
        base,
        mergeStrategy: "ff-or-branch",
        createdAt: 0,
        launch: { pid, boot: "an earlier instance" },
      })
      const twoDaysAgo = new Date(NOW - 2 * DAY)
      utimesSync(join(path, ".opencode/ralph-loop/worktree.json"), twoDaysAgo, twoDaysAgo)
      return path
    }
    // A process that has ended: its pid names no process now.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid
    const cut = await launched("cut-wt", gone)
    const starting = await launched("starting-wt", process.ppid)

    const { code, lines } = await runClean(main, ["--days", "1"])
    expect(code).toBe(0)
    expect(lines.filter((line) => line.includes("worktree"))).toEqual([
      "ralph-loop clean: removed the worktree cut-wt and its branch ralph/cut-wt; its loop's files are kept in .opencode/ralph-loop/merged/cut-wt/",
    ])
    expect(existsSync(cut)).toBe(false)
    expect(existsSync(starting)).toBe(true)
  })

  it("keeps a worktree whose loop ended moments ago until its OpenCode instance has written its report (its writes would meet the removal), also with --force", async () => {
    const main = repo()
    const path = await worktreeLoop(main, "just-wt", "ses_just", 1 / DAY) // a millisecond ago

    const first = await runClean(main, ["--days", "0", "--force"])
    expect(first.lines).toContain(
      "ralph-loop clean: kept the worktree just-wt: its loop ended moments ago and OpenCode is still writing its report there",
    )
    expect(existsSync(path)).toBe(true)

    // Its instance wrote the report (last of its end files).
    const report = htmlReportFile(path, { loop: ended({ id: "ses_just", sessionID: "ses_just" }), savedAt: NOW - 1 })
    mkdirSync(dirname(report), { recursive: true })
    writeFileSync(report, "<html></html>\n")
    const second = await runClean(main, ["--days", "0", "--force"])
    expect(second.lines).toContain(
      "ralph-loop clean: removed the worktree just-wt and its branch ralph/just-wt; its loop's files are kept in .opencode/ralph-loop/merged/just-wt/",
    )
    expect(existsSync(path)).toBe(false)
    expect(
      existsSync(join(main, ".opencode/ralph-loop/merged/just-wt/.opencode/sessions/ses_just/ralph_report.html")),
    ).toBe(true)
  })

  it("keeps a worktree whose git status fails (a corrupt index), also with --force", async () => {
    const main = repo()
    const path = await worktreeLoop(main, "broken-wt", "ses_broken", 40)
    writeFileSync(join(path, "a.txt"), "uncommitted work\n")
    writeFileSync(git(path, "rev-parse", "--path-format=absolute", "--git-path", "index"), "this is not an index")

    const { lines } = await runClean(main, ["--force"])
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ralph-loop clean: kept the worktree broken-wt: git could not tell whether it holds work \(git status: /,
      ),
    )
    expect(readFileSync(join(path, "a.txt"), "utf8")).toBe("uncommitted work\n")
  })

  it("removes merged/<NAME>/ archives and the checkpoint refs of their loops once they ended more than --days ago", async () => {
    const main = repo()
    for (const [name, id, daysAgo] of [
      ["old-wt", "ses_wold", 40],
      ["new-wt", "ses_wnew", 2],
    ] as const) {
      const archive = join(main, ".opencode/ralph-loop/merged", name)
      mkdirSync(archive, { recursive: true })
      await save(archive, ended({ id, sessionID: id }), daysAgo)
      sessionFolder(archive, id)
      git(main, "update-ref", `refs/ralph/${id}/0`, "HEAD")
      git(main, "update-ref", `refs/ralph/${id}/1`, "HEAD")
    }

    const { code, lines } = await runClean(main)
    expect(code).toBe(0)
    expect(lines[0]).toMatch(
      /removed the files of 0 loops that ended more than 30 days ago and of 1 worktree loop kept in \.opencode\/ralph-loop\/merged\//,
    )
    expect(readdirSync(join(main, ".opencode/ralph-loop/merged"))).toEqual(["new-wt"])
    expect(git(main, "for-each-ref", "--format=%(refname)", "refs/ralph/")).toBe(
      "refs/ralph/ses_wnew/0\nrefs/ralph/ses_wnew/1",
    )
  })
})
