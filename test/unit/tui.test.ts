// The TUI half's pure parts: which loop is a session's, the /ralph-status dialog, the sidebar's lines
// and the chart, all from recorded loops read as `ralph-loop status` reads them; and when the server
// plugin leaves the commands the TUI half runs itself to the TUI.
import { mkdirSync, readFileSync, renameSync, writeFileSync, type FSWatcher } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { packageInfo } from "../../src/listings/package-info.js"
import { inTuiProcess, tuiHalfListed } from "../../src/listings/tui-half.js"
import { statusDocument } from "../../src/status/document.js"
import { readProjectLoops } from "../../src/status/read-project.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { watchProjectLoops, type WatchFolder } from "../../src/tui/project-loops.js"
import {
  chartLines,
  countdown,
  fromFilesText,
  moveSelection,
  sessionLoop,
  sidebarLines,
  statusDialogText,
  viewDetailLines,
  viewListLines,
} from "../../src/tui/texts.js"
import { tempDirs } from "../temp-dirs.js"
import { NO_PROGRESS, recordLoop, STEADY, T0 } from "./status-fixture.js"

const tempDir = tempDirs()

async function project() {
  const dir = tempDir("ralph-tui-")
  const store = new LoopStore(dir)
  await recordLoop(store, "ses_steady", "polish the widget", STEADY, { end: "completed", startAt: T0 })
  await recordLoop(store, "ses_idle", "refactor the parser", NO_PROGRESS, { startAt: T0 + 3_600_000 })
  return { dir, loops: await readProjectLoops(dir) }
}

describe("the session's loop and the /ralph-status dialog", () => {
  it("a session's loop is found by its sessions; the dialog shows it in detail, another session gets the project's list", async () => {
    const { dir, loops } = await project()
    expect(sessionLoop(loops.loops, "ses_idle")?.loop.id).toBe("ses_idle")
    expect(sessionLoop(loops.loops, "ses_other")).toBeUndefined()
    expect(sessionLoop(loops.loops, undefined)).toBeUndefined()

    const own = statusDocument(dir, loops.loops, loops.history, "ses_idle", T0)
    const text = statusDialogText(own, true)
    expect(text).toContain("Loop ses_idle — running")
    expect(text).toContain("Iteration 5 of 20")
    expect(text).toContain("Struggle: stuck")

    const other = statusDialogText(statusDocument(dir, loops.loops, loops.history, undefined, T0), false)
    expect(other.split("\n")[0]).toBe("No Ralph loop in this session.")
    expect(other).toContain("ses_steady")
  })

  it("a project without loops says how to start one", async () => {
    const dir = tempDir("ralph-tui-empty-")
    const loops = await readProjectLoops(dir)
    expect(statusDialogText(statusDocument(dir, loops.loops, loops.history, undefined, T0), false)).toBe(
      "No Ralph loop in this project yet. /ralph <task> starts one.",
    )
  })

  it("the text from the files, shown when the server plugin's own status could not be had, says why", () => {
    expect(fromFilesText("Loop ses_a — running", "the ralph-loop server plugin did not answer")).toBe(
      "Loop ses_a — running\n\n(The shorter status, read from the loops' files: the ralph-loop server plugin did not answer.)",
    )
    expect(fromFilesText("No Ralph loop in this project yet.", undefined)).toBe("No Ralph loop in this project yet.")
  })
})

describe("the sidebar's lines", () => {
  it("state, iteration of its limit, breaker, struggle, last checks and tokens; a wait with its countdown", async () => {
    const { dir, loops } = await project()
    const steady = statusDocument(dir, loops.loops, loops.history, "ses_steady", T0).selected!
    const lines = sidebarLines(steady, [], T0)
    expect(lines).toEqual([
      "ended: completed",
      "iteration 3 of 20",
      "breaker CLOSED",
      "struggle: ok",
      "checks (it. 3): 0 err, 0 warn, 0/4 tests failed",
      "3,300 tokens · $0.00",
    ])

    const waiting = {
      ...steady,
      state: "waiting" as const,
      wait: { reason: "usage-limit", until: new Date(T0 + 125_000).toISOString() },
    }
    expect(sidebarLines(waiting, [], T0)[0]).toBe("waiting (usage-limit) 2m 05s left")
    expect(sidebarLines(waiting, [], T0 + 120_000)[0]).toBe("waiting (usage-limit) 5s left")
    expect(countdown(new Date(T0).toISOString(), T0 + 9_000)).toBe("0s")
  })

  it("a completed loop's evidence under its state: verified with what passed, or not verified and why (issue 39)", async () => {
    const { dir, loops } = await project()
    const steady = statusDocument(dir, loops.loops, loops.history, "ses_steady", T0).selected!
    const check = { name: "unit", command: "npm test", exitCode: 0, outputSha256: "", ranAt: T0 }
    const evidence = {
      verified: true,
      checks: [{ ...check, tests: { passed: 12, failed: 0, skipped: 0 } }],
      changedFiles: ["a.ts"],
      review: null,
      weakened: [],
    }
    expect(sidebarLines({ ...steady, evidence }, [], T0).slice(0, 3)).toEqual([
      "ended: completed",
      "verified — unit 12 passed",
      "iteration 3 of 20",
    ])
    const none = { ...evidence, verified: false, checks: [] }
    expect(sidebarLines({ ...steady, evidence: none }, [], T0)[1]).toBe("not verified: no check ran")
    const failed = { ...evidence, verified: false, checks: [{ ...check, exitCode: 1, tests: null }] }
    expect(sidebarLines({ ...steady, evidence: failed }, [], T0, 20)[1]).toBe("not verified: unit …")
    // The replay under the verdict (issue 46).
    const replayed = { ...evidence, replay: { status: "not-needed" as const } }
    expect(sidebarLines({ ...steady, evidence: replayed }, [], T0, 60)[2]).toBe(
      "replay: not needed (the loop changed no file of the start's…",
    )
  })

  it("nothing without a loop of the session or a worktree loop; worktree loops under their own heading", async () => {
    const { dir, loops } = await project()
    expect(sidebarLines(undefined, [], T0)).toEqual([])
    const idle = statusDocument(dir, loops.loops, loops.history, "ses_idle", T0).selected!
    expect(sidebarLines(undefined, [{ ...idle, worktree: "fix-login" }], T0)).toEqual([
      "worktree loops:",
      "fix-login · running · 5/20",
    ])
  })
})

describe("the view's chart", () => {
  it("one column per iteration: problems (errors + failed tests; · where no check ran) and tokens", async () => {
    const { dir, loops } = await project()
    const history = statusDocument(dir, loops.loops, loops.history, "ses_steady", T0).selected!.history
    expect(chartLines(history)).toEqual([
      "problems █·▁  (max 3)",
      "tokens   █▇▇  (max 1,200)",
      "         iterations 1–3",
    ])
    expect(chartLines([])).toEqual([])
  })
})

describe("the full-screen view", () => {
  it("one line per loop, the selected one marked; up and down move within the list", async () => {
    const { dir, loops } = await project()
    const doc = statusDocument(dir, loops.loops, loops.history, "ses_steady", T0)
    const lines = viewListLines(doc.loops, "ses_steady", T0)
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^ {2}ses_idle · running · 5\/20 · .* · refactor the parser$/)
    expect(lines[1]).toMatch(/^› ses_steady · ended: completed · 3\/20 · /)
    expect(viewListLines([], undefined, T0)).toEqual(["No Ralph loop in this project yet. /ralph <task> starts one."])

    const ids = doc.loops
    expect(moveSelection(ids, "ses_idle", 1)).toBe("ses_steady")
    expect(moveSelection(ids, "ses_steady", 1)).toBe("ses_steady")
    expect(moveSelection(ids, "ses_steady", -1)).toBe("ses_idle")
    expect(moveSelection(ids, "ses_idle", -1)).toBe("ses_idle")
    expect(moveSelection(ids, "ses_gone", 1)).toBe("ses_idle")
    expect(moveSelection([], undefined, 1)).toBeUndefined()
  })

  it("the selected loop's detail: its summary, chart and table, the table cut to its newest rows with what was left out", async () => {
    const { dir, loops } = await project()
    const steady = statusDocument(dir, loops.loops, loops.history, "ses_steady", T0).selected!
    const all = viewDetailLines(steady)
    expect(all[0]).toBe("Loop ses_steady — ended completed")
    expect(all).toContain("problems █·▁  (max 3)")
    const table = all.slice(all.findIndex((l) => l.startsWith("iteration ")))
    expect(table.map((l) => l.split(/\s+/)[0])).toEqual(["iteration", "1", "2", "3"])
    const cut = viewDetailLines(steady, 2)
    expect(cut.slice(-4).map((l) => l.split(/\s+/)[0])).toEqual(["iteration", "2", "3", "(1"])
    expect(cut.at(-1)).toBe("(1 earlier iteration not shown)")
  })
})

describe("watching the project's loops", () => {
  it("reads once at start and again when a loop's files change", async () => {
    const dir = tempDir("ralph-tui-watch-")
    const reads: number[] = []
    let resolveSecond!: () => void
    const second = new Promise<void>((r) => (resolveSecond = r))
    const watcher = watchProjectLoops(dir, (l) => {
      reads.push(l.loops.length)
      if (reads.length === 2) resolveSecond()
    })
    try {
      await new Promise<void>((r) => {
        const check = () => (reads.length >= 1 ? r() : setTimeout(check, 10))
        check()
      })
      expect(reads).toEqual([0])
      await recordLoop(new LoopStore(dir), "ses_new", "a new loop", STEADY.slice(0, 1), { startAt: T0 })
      await second
      expect(reads.at(-1)).toBe(1)
    } finally {
      watcher.close()
    }
  })
})

describe("watching the project's loops as OpenCode's Bun reports changes", () => {
  it("a state file being written when the files were read is read again, though its rename brings no event", async () => {
    const dir = tempDir("ralph-tui-burst-")
    const store = new LoopStore(dir)
    await recordLoop(store, "ses_burst", "a loop", STEADY.slice(0, 1), { startAt: T0 })
    // A watcher that reports only when the test says: here, once, for the temp file's creation.
    const listeners = new Map<string, () => void>()
    const fake: WatchFolder = (folder, listener) => {
      listeners.set(folder, listener)
      return {
        close() {},
        on() {
          return this
        },
      } as unknown as FSWatcher
    }
    const phases: string[] = []
    const waiters: Array<() => void> = []
    const reads = (n: number) =>
      new Promise<void>((resolve) =>
        phases.length >= n ? resolve() : waiters.push(() => phases.length >= n && resolve()),
      )
    const watcher = watchProjectLoops(
      dir,
      (l) => {
        phases.push(l.loops[0]?.loop.phase ?? "none")
        for (const w of waiters.splice(0)) w()
      },
      () => {},
      fake,
    )
    try {
      await reads(1)
      const file = store.fileOf("ses_burst")
      const temp = join(dir, ".opencode/ralph-loop/loops", `.ses_burst.json.${process.pid}.0000000a.tmp`)
      writeFileSync(temp, readFileSync(file, "utf8").replace(/"phase":\s*"running"/, '"phase":"paused"'))
      listeners.get(join(dir, ".opencode/ralph-loop/loops"))?.()
      await reads(2)
      expect(phases).toEqual(["running", "running"])
      renameSync(temp, file)
      await reads(3)
      expect(phases[2]).toBe("paused")
    } finally {
      watcher.close()
    }
  })
})

describe("which server commands the TUI process leaves to the TUI half", () => {
  it("only OpenCode's TUI worker counts as the TUI process", () => {
    expect(inTuiProcess(["bun", "/$bunfs/root/src/cli/tui/worker.js"])).toBe(true)
    expect(inTuiProcess(["/usr/bin/opencode", "run", "hi"])).toBe(false)
    expect(inTuiProcess(["/usr/bin/opencode", "serve"])).toBe(false)
  })

  it("the TUI half counts as listed when a tui.json the TUI reads names this package", () => {
    const root = tempDir("ralph-tui-half-")
    const project = join(root, "project")
    mkdirSync(join(project, ".git"), { recursive: true })
    const env = { XDG_CONFIG_HOME: join(root, "config") }
    expect(tuiHalfListed(project, env)).toBe(false)
    writeFileSync(join(project, "opencode.json"), JSON.stringify({ plugin: [packageInfo().spec] }))
    expect(tuiHalfListed(project, env)).toBe(false)
    mkdirSync(join(project, ".opencode"))
    writeFileSync(join(project, ".opencode", "tui.jsonc"), `{ // the TUI\n "plugin": [["${packageInfo().spec}", {}]] }`)
    expect(tuiHalfListed(project, env)).toBe(true)
    const global = join(root, "config", "opencode")
    mkdirSync(global, { recursive: true })
    writeFileSync(join(global, "tui.json"), JSON.stringify({ plugin: [packageInfo().dir] }))
    const elsewhere = join(root, "elsewhere")
    mkdirSync(join(elsewhere, ".git"), { recursive: true })
    expect(tuiHalfListed(elsewhere, env)).toBe(true)
  })
})
