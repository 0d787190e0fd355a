// `ralph-loop status` and the struggle signal, on journals recorded by the store's own writers.
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { parseArgs } from "../../src/cli/args.js"
import { report, status } from "../../src/cli/status.js"
import { worktreePath } from "../../src/worktrees/names.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { statusDocument, statusDocumentSchema } from "../../src/status/document.js"
import { histories, historyOf, type IterationRow } from "../../src/status/history.js"
import { historyTable, loopLine, statusLines } from "../../src/status/lines.js"
import { readProjectLoops } from "../../src/status/read-project.js"
import { struggle } from "../../src/status/struggle.js"
import { decide } from "../../src/loop/decide.js"
import { LoopManager } from "../../src/loop/manager.js"
import { loop as fixtureLoop } from "./fixtures.js"
import { readDecidedLines } from "../../src/store/journal-history.js"
import { tempDirs } from "../temp-dirs.js"
import { NO_PROGRESS, recordLoop, SAME_FAILURE, STEADY, T0, type Step } from "./status-fixture.js"

const tempDir = tempDirs()

/** A project with the three recorded loops: steady (ended), same failure (ended), no progress (still running). */
async function recordedProject(): Promise<string> {
  const project = tempDir("ralph-status-")
  const store = new LoopStore(project)
  await recordLoop(store, "ses_steady", "polish the widget", STEADY, { end: "completed", startAt: T0 })
  await recordLoop(store, "ses_failing", "make the tests pass", SAME_FAILURE, {
    end: "max-iterations",
    startAt: T0 + 3_600_000,
  })
  await recordLoop(store, "ses_idle", "refactor the parser\nwith more detail", NO_PROGRESS, { startAt: T0 + 7_200_000 })
  return project
}

const rowsOf = async (steps: Step[]): Promise<IterationRow[]> => {
  const project = tempDir("ralph-history-")
  const store = new LoopStore(project)
  const loop = await recordLoop(store, "ses_one", "a task", steps, { end: "completed" })
  return historyOf(histories(await readDecidedLines(store.dir)), loop)
}

describe("the iteration history from the journal", () => {
  it("one row per decided turn with that iteration's own tokens, time, checks and progress", async () => {
    const rows = await rowsOf(STEADY)
    expect(
      rows.map((r) => [
        r.iteration,
        r.tokens,
        r.durationMs,
        r.checks?.errors ?? null,
        r.failing,
        r.progress,
        r.rejected,
      ]),
    ).toEqual([
      [1, 1200, 30_000, 3, ["typecheck"], true, true],
      [2, 1100, 25_000, null, [], true, false],
      [3, 1000, 20_000, 0, [], true, false],
    ])
  })

  it("a new loop in the session of an ended one (the same id) starts a history of its own", async () => {
    const project = tempDir("ralph-same-id-")
    const store = new LoopStore(project)
    await recordLoop(store, "ses_same", "the first task", STEADY, { end: "completed", startAt: T0 })
    const second = await recordLoop(store, "ses_same", "the second task", NO_PROGRESS.slice(0, 2), {
      startAt: T0 + 3_600_000,
    })
    const { loops, history } = await readProjectLoops(project)
    expect(loops.map((l) => l.loop.task)).toEqual(["the second task"])
    expect(historyOf(history, second).map((r) => [r.iteration, r.tokens])).toEqual([
      [1, 900],
      [2, 900],
    ])
  })

  it("a decided line the journal's rotation carried over counts once", async () => {
    const project = tempDir("ralph-rotated-")
    const store = new LoopStore(project, undefined, { maxBytes: 4000, kept: 50 })
    const loop = await recordLoop(store, "ses_long", "a long task", [...NO_PROGRESS, ...NO_PROGRESS])
    expect(readdirSync(store.dir).filter((name) => name.startsWith("journal-")).length).toBeGreaterThan(2)
    const rows = historyOf(histories(await readDecidedLines(store.dir)), loop)
    expect(rows.map((r) => r.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
  })
})

describe("the struggle signal", () => {
  it("steady progress: ok", async () => {
    expect(struggle(await rowsOf(STEADY))).toEqual({ signal: "ok", reason: "making progress" })
  })

  it("the same check failing: stuck, naming the check", async () => {
    expect(struggle(await rowsOf(SAME_FAILURE))).toEqual({
      signal: "stuck",
      reason: 'check "test" failed 3 iterations in a row',
    })
  })

  it("no progress: stuck after three iterations, slowing after two", async () => {
    expect(struggle(await rowsOf(NO_PROGRESS))).toEqual({
      signal: "stuck",
      reason: "3 iterations in a row without progress",
    })
    expect(struggle(await rowsOf(NO_PROGRESS.slice(0, 3)))).toEqual({
      signal: "slowing",
      reason: "2 iterations in a row without progress",
    })
  })

  it("slowing on rising tokens per iteration and on rejected claims; ok with no history", async () => {
    const rising: Step[] = [1000, 1400, 2100].map((tokens) => ({ tokens, durationMs: 1000, progress: true }))
    expect(struggle(await rowsOf(rising))).toEqual({
      signal: "slowing",
      reason: "tokens per iteration rising: 1,000 → 1,400 → 2,100",
    })
    const rejected: Step[] = [
      {
        tokens: 10,
        durationMs: 1000,
        progress: true,
        claimed: true,
        checks: { errors: 1, warnings: 0, failing: ["lint"] },
      },
      {
        tokens: 10,
        durationMs: 1000,
        progress: true,
        claimed: true,
        checks: { errors: 1, warnings: 0, failing: ["typecheck"] },
      },
      { tokens: 10, durationMs: 1000, progress: true },
    ]
    expect(struggle(await rowsOf(rejected))).toEqual({
      signal: "slowing",
      reason: "2 of the last 3 completion claims were rejected",
    })
    expect(struggle([])).toEqual({ signal: "ok", reason: "no iteration decided yet" })
  })
})

describe("a loop that completed in two iterations", () => {
  it("every decided turn records its progress, the completing one too (it wrote the file); its status says ok — completed", async () => {
    const project = tempDir("ralph-two-")
    const store = new LoopStore(project)
    const saves: Promise<unknown>[] = []
    let now = T0
    // Production's listener: every change the manager reports is saved, with its journal line.
    const manager = new LoopManager((changed, event) => void saves.push(store.save(changed, event, now)))
    const { loop } = manager.start("ses_two", "write the file", fixtureLoop().settings, now)
    loop.progress = { ...loop.progress, workTree: "tree-0" }
    const turnEnds = (text: string, workTree: string) => {
      now += 10_000
      manager.onBusy(loop.sessionID)
      manager.takeIdle(loop.sessionID)
      const turn = { lastAssistantID: `msg_${now}`, texts: [text] }
      const { decision, update } = decide(loop, {
        turn,
        sample: { workTree, todosCompleted: 0, openTodos: [], sessionID: loop.sessionID },
        now,
      })
      manager.decided(loop, turn, update, decision)
      return decision
    }
    // Iteration 1 looks around (the work tree stays); iteration 2 writes the file and promises.
    expect(turnEnds("Looking around first.", "tree-0")).toMatchObject({ type: "restart" })
    manager.beginRestart(loop, { fresh: false })
    manager.nextIteration(loop, loop.sessionID, now)
    expect(turnEnds("Wrote it. <promise>DONE</promise>", "tree-1")).toMatchObject({ type: "complete" })
    manager.stop(loop, "completed", "the promise was kept")
    await Promise.all(saves)

    const { loops, history } = await readProjectLoops(project)
    expect(historyOf(history, loop).map((r) => [r.iteration, r.decision, r.progress])).toEqual([
      [1, "restart", false],
      [2, "complete", true],
    ])
    const doc = statusDocument(project, loops, history, undefined, now)
    expect(doc.selected?.struggle).toEqual({ signal: "ok", reason: "completed" })
    expect(statusLines(doc)).toContain("Struggle: ok — completed")
    expect(historyTable(doc.selected?.history ?? [])[2]).toMatch(/\syes\s*$/)
  })

  it("the struggle signal of a completed loop is ok whatever its last iterations were", async () => {
    expect(struggle(await rowsOf(NO_PROGRESS), "completed")).toEqual({ signal: "ok", reason: "completed" })
    expect(struggle(await rowsOf(NO_PROGRESS), "max-iterations")).toEqual({
      signal: "stuck",
      reason: "3 iterations in a row without progress",
    })
  })
})

describe("ralph-loop status", () => {
  it("prints one line per loop, newest first, then the newest in detail with its iteration table", async () => {
    const project = await recordedProject()
    const { loops, history } = await readProjectLoops(project)
    const doc = statusDocument(project, loops, history, undefined, T0 + 8_000_000)
    const lines = statusLines(doc)
    expect(lines[0]).toBe(`Loops in ${project} (3, newest first):`)
    expect(lines.slice(1, 4)).toEqual([
      "● ses_idle · running · iteration 5/20 · recreate · breaker CLOSED · 3,600 tokens $0.00 · 10.0 s/iteration · no checks · stuck · refactor the parser",
      "■ ses_failing · ended max-iterations · iteration 3/20 · recreate · breaker CLOSED · 3,000 tokens $0.00 · 20.0 s/iteration · 0 err 0 warn 1/4 tests failed · stuck · make the tests pass",
      "■ ses_steady · ended completed · iteration 3/20 · recreate · breaker CLOSED · 3,300 tokens $0.00 · 25.0 s/iteration · 0 err 0 warn 0/4 tests failed · ok · polish the widget",
    ])
    expect(lines).toContain("Loop ses_idle — running")
    expect(lines).toContain("Struggle: stuck — 3 iterations in a row without progress")
    const table = historyTable(doc.selected?.history ?? [])
    expect(table).toHaveLength(1 + 4)
    expect(table[0]).toMatch(/^iteration\s+decided\s+decision\s+tokens/)
    expect(table[3]).toMatch(/^3\s+12:00:30\s+restart\s+900\s+0\.0009\s+10\.0 s\s+–\s+–\s+–\s+no$/)
    expect(lines.slice(-5)).toEqual(table)
  })

  it("LOOP picks the loop shown in detail, by its id or the start of it", async () => {
    const project = await recordedProject()
    const { loops, history } = await readProjectLoops(project)
    expect(statusDocument(project, loops, history, "ses_fail", T0).selected?.id).toBe("ses_failing")
    expect(statusDocument(project, loops, history, "ses_nope", T0).selected).toBeNull()
    expect(loopLine(statusDocument(project, loops, history, "ses_steady", T0).selected!)).toMatch(
      /^■ ses_steady · ended completed/,
    )
  })

  it("--json: the document passes its schema, and the published JSON Schema is the one generated from it", async () => {
    const project = await recordedProject()
    const { loops, history } = await readProjectLoops(project)
    const json = JSON.parse(JSON.stringify(statusDocument(project, loops, history, "ses_failing", T0 + 8_000_000)))
    const doc = statusDocumentSchema.parse(json)
    expect(doc.loops.map((l) => [l.id, l.state, l.iteration, l.struggle.signal])).toEqual([
      ["ses_idle", "running", 5, "stuck"],
      ["ses_failing", "stopped", 3, "stuck"],
      ["ses_steady", "stopped", 3, "ok"],
    ])
    expect(doc.selected?.history.map((r) => [r.iteration, r.failing, r.tokens])).toEqual([
      [1, ["test"], 1000],
      [2, ["test"], 1000],
      [3, ["test"], 1000],
    ])
    // A document missing a field or with a wrong signal fails the schema.
    expect(
      statusDocumentSchema.safeParse({
        ...json,
        loops: [{ ...json.loops[0], struggle: { signal: "fine", reason: "" } }],
      }).success,
    ).toBe(false)
    const published = JSON.parse(readFileSync(new URL("../../docs/status.schema.json", import.meta.url), "utf8"))
    expect(published).toEqual(z.toJSONSchema(statusDocumentSchema))
  })

  it("lists the worktree loops with the project's own, each with its worktree; history, detail and report come from the worktree's files", async () => {
    const project = await recordedProject()
    const worktree = worktreePath(project, "feat")
    mkdirSync(worktree, { recursive: true })
    await recordLoop(new LoopStore(worktree), "ses_tree", "build it in a worktree", STEADY, {
      end: "completed",
      startAt: T0 + 9_000_000,
    })
    const { loops, history } = await readProjectLoops(project)
    const doc = statusDocument(project, loops, history, undefined, T0 + 10_000_000)
    expect(doc.loops.map((l) => [l.id, l.worktree])).toEqual([
      ["ses_tree", "feat"],
      ["ses_idle", null],
      ["ses_failing", null],
      ["ses_steady", null],
    ])
    const lines = statusLines(doc)
    expect(lines[1]).toMatch(/^■ ses_tree · worktree feat · ended completed · iteration 3\/20 · /)
    expect(lines).toContain("Loop ses_tree (worktree feat) — ended completed")
    expect(doc.selected?.history.map((r) => [r.iteration, r.tokens])).toEqual([
      [1, 1200],
      [2, 1100],
      [3, 1000],
    ])
    const args = parseArgs(["report", "ses_tree"], project)
    if ("error" in args) throw new Error(args.error)
    const out: string[] = []
    expect(await report(args, (text) => out.push(text))).toBe(0)
    expect(out).toEqual([join(worktree, ".opencode/sessions/ses_tree/ralph_report.html")])
  })

  it("a project without loops", async () => {
    const project = tempDir("ralph-empty-")
    const { loops, history } = await readProjectLoops(project)
    const doc = statusDocument(project, loops, history, undefined, T0)
    expect(doc.selected).toBeNull()
    expect(statusLines(doc)).toEqual([`No Ralph loop in ${project} yet.`])
  })

  it("the command: LOOP and --json from the arguments; an unknown LOOP exits 1", async () => {
    const project = await recordedProject()
    const run = async (...argv: string[]) => {
      const args = parseArgs(["status", ...argv], project)
      if ("error" in args) throw new Error(args.error)
      const out: string[] = []
      return { code: await status(args, (text) => out.push(text)), out: out.join("\n") }
    }
    const text = await run("ses_steady")
    expect(text.code).toBe(0)
    expect(text.out).toContain("\nLoop ses_steady — ended completed\n")
    const json = await run("--json", "ses_failing")
    expect(statusDocumentSchema.parse(JSON.parse(json.out)).selected?.id).toBe("ses_failing")
    expect(await run("ses_nope")).toEqual({ code: 1, out: `No loop ses_nope in ${project}.` })
    expect(parseArgs(["status", "a", "b"], project)).toEqual({ error: "unexpected argument b" })
  })
})
