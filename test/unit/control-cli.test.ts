// `ralph-loop pause | resume | cancel | hint | rollback`: how the command line is read, and where a
// request goes — the loop named (or the one live loop) found in the project's files, a worktree
// loop's request in its worktree.
import { mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../../src/cli/args.js"
import { control, MAX_HINT_CHARS } from "../../src/cli/control.js"
import { controlTarget } from "../../src/control/target.js"
import type { Loop } from "../../src/loop/loop.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { WORKTREES_DIR } from "../../src/worktrees/names.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tempDir = tempDirs()

async function save(directory: string, ...loops: Loop[]): Promise<void> {
  const store = new LoopStore(directory)
  for (const l of loops) await store.save(l, "test", 1_000)
  await store.flush()
}

describe("the control verbs' command line", () => {
  it("pause, resume, cancel and rollback take the loop; hint the loop and the text, or the text alone", () => {
    expect(parseArgs(["pause"], "/p")).toMatchObject({ command: "pause", loop: undefined })
    expect(parseArgs(["resume", "ses_ab", "--project", "x"], "/p")).toMatchObject({
      command: "resume",
      loop: "ses_ab",
      project: "/p/x",
    })
    expect(parseArgs(["rollback", "ses_ab", "--to", "3"], "/p")).toMatchObject({
      command: "rollback",
      loop: "ses_ab",
      to: 3,
    })
    expect(parseArgs(["rollback", "--to=start"], "/p")).toMatchObject({
      command: "rollback",
      loop: undefined,
      to: "start",
    })
    expect(parseArgs(["hint", "use the fast path"], "/p")).toMatchObject({
      command: "hint",
      loop: undefined,
      operands: ["use the fast path"],
    })
    expect(parseArgs(["hint", "ses_ab", "use the fast path"], "/p")).toMatchObject({
      command: "hint",
      loop: "ses_ab",
      operands: ["ses_ab", "use the fast path"],
    })
  })

  it("takes what follows -- as it is: a hint that starts with --, with or without the loop", () => {
    expect(parseArgs(["hint", "--", "--verbose is broken"], "/p")).toMatchObject({
      command: "hint",
      loop: undefined,
      operands: ["--verbose is broken"],
    })
    expect(parseArgs(["hint", "ses_ab", "--", "--foo"], "/p")).toMatchObject({
      command: "hint",
      loop: "ses_ab",
      operands: ["ses_ab", "--foo"],
    })
    expect(parseArgs(["hint", "--project", "x", "--", "-v"], "/p")).toMatchObject({
      command: "hint",
      project: "/p/x",
      operands: ["-v"],
    })
    // Only the first -- ends the options; a later one is the text.
    expect(parseArgs(["hint", "--", "--"], "/p")).toMatchObject({ command: "hint", operands: ["--"] })
    // Without --, an option-like word is still an unknown option, and options after -- are words.
    expect(parseArgs(["hint", "--foo"], "/p")).toEqual({ error: "unknown option --foo" })
    expect(parseArgs(["hint", "--", "ses_a", "text", "--json"], "/p")).toEqual({ error: "unexpected argument --json" })
  })

  it("refuses what it cannot mean", () => {
    expect(parseArgs(["pause", "ses_a", "ses_b"], "/p")).toEqual({ error: "unexpected argument ses_b" })
    expect(parseArgs(["rollback", "--to", "-1"], "/p")).toEqual({
      error: '--to needs a checkpoint\'s number or "start", not "-1"',
    })
    expect(parseArgs(["rollback", "--to"], "/p")).toEqual({ error: '--to needs a checkpoint\'s number or "start"' })
  })
})

describe("where a control request goes", () => {
  it("the project's one live loop, or the one named by the start of its id; ended loops only for a rollback", async () => {
    const project = tempDir("ralph-control-target-")
    await save(
      project,
      loop({ id: "ses_live1", sessionID: "ses_live1", phase: "running" }),
      loop({ id: "ses_old", sessionID: "ses_old", phase: "stopped", stopReason: "completed" }),
    )
    expect(await controlTarget(project, undefined, "pause")).toEqual({
      ok: true,
      target: { directory: project, loop: "ses_live1" },
    })
    expect(await controlTarget(project, "ses_l", "cancel")).toEqual({
      ok: true,
      target: { directory: project, loop: "ses_live1" },
    })
    expect(await controlTarget(project, "ses_old", "pause")).toEqual({
      ok: false,
      reason: "No live Ralph loop here is ses_old (live: ses_live1).",
    })
    expect(await controlTarget(project, "ses_old", "rollback")).toEqual({
      ok: true,
      target: { directory: project, loop: "ses_old" },
    })
  })

  it("a worktree loop's request goes to its worktree; with two live loops, none is chosen for you", async () => {
    const project = tempDir("ralph-control-target-")
    const worktree = join(project, WORKTREES_DIR, "fix-wt")
    mkdirSync(worktree, { recursive: true })
    await save(project, loop({ id: "ses_main", sessionID: "ses_main", phase: "paused" }))
    await save(worktree, loop({ id: "ses_wt", sessionID: "ses_wt", phase: "waiting" }))
    expect(await controlTarget(project, "ses_wt", "resume")).toEqual({
      ok: true,
      target: { directory: worktree, loop: "ses_wt", worktree: "fix-wt" },
    })
    expect(await controlTarget(project, undefined, "pause")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(
        /^2 Ralph loops are live in this project; name one: (ses_main, ses_wt|ses_wt, ses_main)\.$/,
      ),
    })
  })
})

describe("a hint's text, checked before it is sent", () => {
  async function hint(project: string, text: string): Promise<{ code: number; out: string[]; fail: string[] }> {
    const args = parseArgs(["hint", "--", text], project)
    if ("error" in args) throw new Error(args.error)
    const out: string[] = []
    const fail: string[] = []
    const code = await control(
      args,
      "hint",
      (line) => out.push(line),
      (line) => fail.push(line),
    )
    return { code, out, fail }
  }

  it("one over the limit: one line naming the limit and the length, exit 2, nothing written", async () => {
    const project = tempDir("ralph-control-hint-")
    const result = await hint(project, "x".repeat(MAX_HINT_CHARS + 1))
    expect(result).toEqual({
      code: 2,
      out: [],
      fail: ["ralph-loop: the hint is 4,001 characters long; a hint can be at most 4,000"],
    })
    expect(MAX_HINT_CHARS).toBe(4_000)
    expect(readdirSync(project)).toEqual([])
  })

  it("at the limit, or starting with --, it goes on to find the loop (none here: refused, exit 1)", async () => {
    const project = tempDir("ralph-control-hint-")
    for (const text of ["x".repeat(MAX_HINT_CHARS), "--verbose is broken"])
      expect(await hint(project, text)).toEqual({
        code: 1,
        out: [],
        fail: ["ralph-loop hint: There is no live Ralph loop in this project."],
      })
    expect(await hint(project, "  ")).toMatchObject({
      code: 2,
      fail: [expect.stringMatching(/^ralph-loop: hint needs the text/)],
    })
  })
})
