// `ralph-loop pause | resume | cancel | hint | rollback`: how the command line is read, and where a
// request goes — the loop named (or the one live loop) found in the project's files, a worktree
// loop's request in its worktree.
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../../src/cli/args.js"
import { controlTarget } from "../../src/control/target.js"
import type { Loop } from "../../src/loop/loop.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { WORKTREES_DIR } from "../../src/worktree/names.js"
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
    expect(parseArgs(["resume", "ses_ab", "--project", "x"], "/p")).toMatchObject({ command: "resume", loop: "ses_ab", project: "/p/x" })
    expect(parseArgs(["rollback", "ses_ab", "--to", "3"], "/p")).toMatchObject({ command: "rollback", loop: "ses_ab", to: 3 })
    expect(parseArgs(["rollback", "--to=start"], "/p")).toMatchObject({ command: "rollback", loop: undefined, to: "start" })
    expect(parseArgs(["hint", "use the fast path"], "/p")).toMatchObject({ command: "hint", loop: undefined, operands: ["use the fast path"] })
    expect(parseArgs(["hint", "ses_ab", "use the fast path"], "/p")).toMatchObject({ command: "hint", loop: "ses_ab", operands: ["ses_ab", "use the fast path"] })
  })

  it("refuses what it cannot mean", () => {
    expect(parseArgs(["pause", "ses_a", "ses_b"], "/p")).toEqual({ error: "unexpected argument ses_b" })
    expect(parseArgs(["rollback", "--to", "-1"], "/p")).toEqual({ error: '--to needs a checkpoint\'s number or "start", not "-1"' })
    expect(parseArgs(["rollback", "--to"], "/p")).toEqual({ error: '--to needs a checkpoint\'s number or "start"' })
  })
})

describe("where a control request goes", () => {
  it("the project's one live loop, or the one named by the start of its id; ended loops only for a rollback", async () => {
    const project = tempDir("ralph-control-target-")
    await save(project, loop({ id: "ses_live1", sessionID: "ses_live1", phase: "running" }), loop({ id: "ses_old", sessionID: "ses_old", phase: "stopped", stopReason: "completed" }))
    expect(await controlTarget(project, undefined, "pause")).toEqual({ ok: true, target: { directory: project, loop: "ses_live1" } })
    expect(await controlTarget(project, "ses_l", "cancel")).toEqual({ ok: true, target: { directory: project, loop: "ses_live1" } })
    expect(await controlTarget(project, "ses_old", "pause")).toEqual({ ok: false, reason: "No live Ralph loop here is ses_old (live: ses_live1)." })
    expect(await controlTarget(project, "ses_old", "rollback")).toEqual({ ok: true, target: { directory: project, loop: "ses_old" } })
  })

  it("a worktree loop's request goes to its worktree; with two live loops, none is chosen for you", async () => {
    const project = tempDir("ralph-control-target-")
    const worktree = join(project, WORKTREES_DIR, "fix-wt")
    mkdirSync(worktree, { recursive: true })
    await save(project, loop({ id: "ses_main", sessionID: "ses_main", phase: "paused" }))
    await save(worktree, loop({ id: "ses_wt", sessionID: "ses_wt", phase: "waiting" }))
    expect(await controlTarget(project, "ses_wt", "resume")).toEqual({ ok: true, target: { directory: worktree, loop: "ses_wt", worktree: "fix-wt" } })
    expect(await controlTarget(project, undefined, "pause")).toMatchObject({ ok: false, reason: expect.stringMatching(/^2 Ralph loops are live in this project; name one: (ses_main, ses_wt|ses_wt, ses_main)\.$/) })
  })
})
