// /ralph-rollback against the loop's own timers and the project's other loops, wired as production
// wires it (manager → runner → Interpreter with its real timers): the loop is paused, and its
// wake-up timer gone, before any file is rewritten; a wake that prompts before that refuses the
// rollback; an ended loop is not rolled back under another live loop. Git is replaced by gated
// stand-ins, so each test chooses the moment things happen during the rollback.
import type { Part } from "@opencode-ai/sdk"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import * as git from "../../src/checkpoints/checkpoint-git.js"
import { Interpreter } from "../../src/engine/interpreter.js"
import { LoopRunner } from "../../src/engine/runner.js"
import { ControlTurns } from "../../src/engine/control-turns.js"
import { CONTROL_MARKER } from "../../src/host/commands.js"
import { runControl } from "../../src/commands/control.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import type { RalphContext } from "../../src/engine/context.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { CheckpointListError, type Checkpoint } from "../../src/checkpoints/checkpoints.js"
import type { Loop, LoopSettings } from "../../src/loop/loop.js"
import { LoopManager } from "../../src/loop/manager.js"
import { rollbackRefusal, TURN_UNDER_WAY } from "../../src/checkpoints/rollback-rule.js"
import { emptyMemory } from "../../src/memory/memory-file.js"
import type { ProjectMemory } from "../../src/memory/memory-store.js"
import type { OpencodeApi } from "../../src/opencode/api.js"
import { PlanRequests } from "../../src/plan/requests.js"
import type { LoopStore } from "../../src/store/loop-store.js"
import { tempDirs } from "../temp-dirs.js"
import { loop as makeLoop } from "./fixtures.js"

vi.mock("../../src/checkpoints/checkpoint-git.js", async (original) => ({
  ...(await original<typeof import("../../src/checkpoints/checkpoint-git.js")>()),
  listCheckpoints: vi.fn(),
  saveBeforeRollback: vi.fn(),
  restoreCheckpoint: vi.fn(),
}))

const tempDir = tempDirs()
const { activation: _activation, ...defaults } = DEFAULT_SETTINGS
const settings: LoopSettings = { ...defaults, settleMs: 0, notify: { ...defaults.notify, desktop: false } }
const NOW = Date.UTC(2025, 0, 6, 9)
const checkpoint = (number: number): Checkpoint => ({
  ref: `refs/ralph/ses_a/${number}`,
  number,
  iteration: number,
  commit: `c${number}`,
  at: NOW,
})

/** One plugin instance as createInstance builds it, with a fake OpenCode that records prompts and wakes. */
function instance() {
  const prompts: string[] = []
  const woke: Array<Loop["phase"]> = []
  let prompted!: () => void
  const firstPrompt = new Promise<void>((resolve) => (prompted = resolve))
  const api = {
    isIdle: async () => true,
    messages: async () => [],
    todos: async () => [],
    promptAsync: async (sessionID: string) => {
      prompts.push(sessionID)
      prompted()
    },
    setTitle: async () => undefined,
    toast: () => undefined,
    log: () => undefined,
  } as unknown as OpencodeApi
  const store = { settled: async () => undefined, verify: async () => undefined } as unknown as LoopStore
  const memory: ProjectMemory = { read: async () => emptyMemory(), update: async (change) => change(emptyMemory()) }
  const saved: Loop[] = []
  const manager = new LoopManager((loop, event) => runner.loopChanged(loop, event))
  const directory = tempDir("ralph-rollback-")
  const interpreter = new Interpreter({
    directory,
    api,
    store,
    memory,
    now: () => NOW,
    onWake: (loop) => {
      woke.push(loop.phase)
      runner.wake(loop)
    },
  })
  const runner = new LoopRunner(interpreter, {
    directory,
    manager,
    plans: new PlanRequests(),
    continuations: new ContinuationWatch(),
    now: () => NOW,
    settings: () => DEFAULT_SETTINGS,
  })
  const ctx = {
    directory,
    api,
    manager,
    runner,
    plans: new PlanRequests(),
    continuations: new ContinuationWatch(),
    settings: { current: DEFAULT_SETTINGS },
    controlTurns: new ControlTurns(),
    newSessions: new Set<string>(),
    savedLoops: async () => saved.map((loop) => ({ loop, savedAt: NOW })),
    now: () => NOW,
  } as unknown as RalphContext
  /** A loop in `sessionID` waiting out a usage limit, its wake-up timer armed as the turn-end job arms it. */
  const waitingLoop = async (sessionID: string) => {
    const { loop } = manager.start(sessionID, "build it", settings, NOW)
    loop.needsInstruction = false
    manager.wait(loop, { reason: "usage-limit", until: NOW + 60_000, then: "resume" }, "usage limit")
    await interpreter.run(
      (function* () {
        yield { kind: "schedule" as const, loop, until: NOW + 60_000 }
      })(),
    )
    return loop
  }
  /** /ralph-rollback typed in `sessionID`: what the command's message says. */
  const rollback = async (sessionID: string, args = "") => {
    const parts: Part[] = [
      { id: "prt_1", sessionID, messageID: "", type: "text", text: `${CONTROL_MARKER} /ralph-rollback ${args}` },
    ]
    await runControl(ctx, "ralph-rollback", sessionID, args, parts)
    return parts.map((p) => (p.type === "text" ? p.text : "")).join("\n")
  }
  return {
    manager,
    interpreter,
    saved,
    prompts,
    woke,
    firstPrompt,
    waitingLoop,
    rollback,
    advance: (ms: number) => vi.advanceTimersByTime(ms),
  }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })
  vi.mocked(git.listCheckpoints).mockResolvedValue([checkpoint(0), checkpoint(1)])
  vi.mocked(git.saveBeforeRollback).mockResolvedValue({ ...checkpoint(2), iteration: undefined })
  vi.mocked(git.restoreCheckpoint).mockResolvedValue([{ status: "M", path: "work.txt" }])
})

afterEach(() => {
  vi.useRealTimers()
  vi.clearAllMocks()
})

describe("the loop's wake-up timer", () => {
  it.each<[string, (manager: LoopManager, loop: Loop) => void]>([
    ["paused (by a command, a failure or a rollback)", (manager, loop) => manager.pause(loop, "paused", "person")],
    ["stopped", (manager, loop) => manager.stop(loop, "cancelled")],
    ["resumed by the user", (manager, loop) => manager.resume(loop, NOW)],
    ["ended with its session", (manager) => manager.sessionDeleted("ses_a")],
    ["replaced by a new /ralph", (manager) => manager.start("ses_a", "another task", settings, NOW)],
  ])(
    "ends the moment the loop is %s, whoever changes it: the wake-up time passing wakes nothing",
    async (_, change) => {
      const { manager, interpreter, woke, waitingLoop, advance } = instance()
      const loop = await waitingLoop("ses_a")
      change(manager, loop)
      expect(interpreter.timerCount).toBe(0)
      advance(60_000)
      expect(woke).toEqual([])
    },
  )

  it("is not armed for a loop paused between its wait and the schedule effect (a command ran in between)", async () => {
    const { manager, interpreter, woke, advance } = instance()
    const { loop } = manager.start("ses_a", "build it", settings, NOW)
    manager.wait(loop, { reason: "backoff", until: NOW + 60_000, then: "resume" }, "backing off")
    manager.pause(loop, "paused with /ralph-pause", "person")
    await interpreter.run(
      (function* () {
        yield { kind: "schedule" as const, loop, until: NOW + 60_000 }
      })(),
    )
    expect(interpreter.timerCount).toBe(0)
    advance(60_000)
    expect(woke).toEqual([])
  })

  it("stays while the loop waits on (a new wait replaces it)", async () => {
    const { manager, interpreter, woke, waitingLoop, advance } = instance()
    const loop = await waitingLoop("ses_a")
    manager.addHint(loop, "look at the parser")
    manager.wait(loop, { reason: "backoff", until: NOW + 60_000, then: "resume" }, "backing off")
    expect(interpreter.timerCount).toBe(1)
    advance(60_000)
    expect(woke).toEqual(["waiting"])
  })
})

describe("/ralph-rollback and the loop's timer", () => {
  it("a loop waiting out a usage limit is paused, its timer gone, before the work tree is rewritten; the wake-up time passing during the restore prompts nothing", async () => {
    const { interpreter, woke, prompts, waitingLoop, rollback } = instance()
    const loop = await waitingLoop("ses_a")
    expect(interpreter.timerCount).toBe(1)
    let atRestore: { phase: Loop["phase"]; timers: number } | undefined
    vi.mocked(git.restoreCheckpoint).mockImplementation(async () => {
      atRestore = { phase: loop.phase, timers: interpreter.timerCount }
      vi.advanceTimersByTime(60_000) // the wake-up time comes while git writes the files
      return [{ status: "M", path: "work.txt" }]
    })

    const said = await rollback("ses_a", "0")

    expect(said).toContain("The work tree is back at checkpoint 0.")
    expect(atRestore).toEqual({ phase: "paused", timers: 0 })
    expect(woke).toEqual([])
    expect(prompts).toEqual([])
    expect(loop).toMatchObject({ phase: "paused", detail: "rolled back to checkpoint 0" })
    expect(loop.wait).toBeUndefined()
  })

  it("a wake that prompts while the rollback reads the checkpoints refuses the rollback: nothing is saved or restored", async () => {
    const { woke, prompts, firstPrompt, waitingLoop, rollback } = instance()
    const loop = await waitingLoop("ses_a")
    vi.mocked(git.listCheckpoints).mockImplementation(async () => {
      vi.advanceTimersByTime(60_000)
      await firstPrompt // the wake goes on and prompts the model
      return [checkpoint(0), checkpoint(1)]
    })

    const said = await rollback("ses_a", "0")

    expect(woke).toEqual(["waiting"])
    expect(prompts).toEqual(["ses_a"])
    expect(said).toContain("A turn of the loop is under way")
    expect(git.saveBeforeRollback).not.toHaveBeenCalled()
    expect(git.restoreCheckpoint).not.toHaveBeenCalled()
    expect(loop.phase).toBe("running")
  })
})

describe("/ralph-rollback when git cannot list the checkpoints", () => {
  it("is refused, saying so: nothing is saved (as checkpoint 0) or restored, the loop not paused", async () => {
    const { rollback, waitingLoop } = instance()
    const loop = await waitingLoop("ses_a")
    vi.mocked(git.listCheckpoints).mockRejectedValue(
      new CheckpointListError("git for-each-ref: fatal: cannot read the refs"),
    )

    const said = await rollback("ses_a", "0")

    expect(said).toContain(
      "No rollback: the checkpoints could not be listed (git for-each-ref: fatal: cannot read the refs). Nothing was saved or restored",
    )
    expect(git.saveBeforeRollback).not.toHaveBeenCalled()
    expect(git.restoreCheckpoint).not.toHaveBeenCalled()
    expect(loop.phase).toBe("waiting")
  })

  it("is refused when the listing fails at the save (after the pause): nothing restored, the loop left paused, as it says", async () => {
    const { rollback, waitingLoop } = instance()
    const loop = await waitingLoop("ses_a")
    vi.mocked(git.saveBeforeRollback).mockRejectedValue(
      new CheckpointListError("git for-each-ref: fatal: cannot read the refs"),
    )

    const said = await rollback("ses_a", "0")

    expect(said).toContain(
      "No rollback: the checkpoints could not be listed (git for-each-ref: fatal: cannot read the refs). Nothing was saved or restored; try again once git answers. The loop is paused; /ralph-resume goes on.",
    )
    expect(git.restoreCheckpoint).not.toHaveBeenCalled()
    expect(loop.phase).toBe("paused")
  })
})

describe("/ralph-rollback and the project's other loops", () => {
  it("an ended loop is not rolled back while another loop of the project runs: refused, nothing saved or restored", async () => {
    const { manager, saved, rollback } = instance()
    const { loop: ended } = manager.start("ses_a", "the first task", settings, NOW)
    manager.stop(ended, "completed")
    saved.push(ended)
    manager.start("ses_b", "the second task", settings, NOW)

    const said = await rollback("ses_a", "0")

    expect(said).toContain("Another Ralph loop of this project is running (in session ses_b)")
    expect(git.saveBeforeRollback).not.toHaveBeenCalled()
    expect(git.restoreCheckpoint).not.toHaveBeenCalled()
  })

  it("a paused or ended other loop does not stand in the way", async () => {
    const { manager, saved, rollback } = instance()
    const { loop: ended } = manager.start("ses_a", "the first task", settings, NOW)
    manager.stop(ended, "completed")
    saved.push(ended)
    const { loop: other } = manager.start("ses_b", "the second task", settings, NOW)
    manager.pause(other, "paused with /ralph-pause", "person")

    const said = await rollback("ses_a", "0")

    expect(said).toContain("The work tree is back at checkpoint 0.")
    expect(git.restoreCheckpoint).toHaveBeenCalledWith(expect.any(String), "c2", "c0")
    expect(other.phase).toBe("paused")
  })
})

describe("when a rollback may write the work tree (rollbackRefusal)", () => {
  const at = (phase: Loop["phase"], sessionID = "ses_a"): Loop => makeLoop({ phase, sessionID })

  it.each<Loop["phase"]>(["running", "deciding", "restarting"])(
    "not while the loop itself is %s: a turn is under way",
    (phase) => {
      const loop = at(phase)
      expect(rollbackRefusal(loop, [loop])).toBe(TURN_UNDER_WAY)
    },
  )

  it.each<Loop["phase"]>(["paused", "waiting", "stopped"])(
    "a %s loop alone in the project may be rolled back",
    (phase) => {
      const loop = at(phase)
      expect(rollbackRefusal(loop, phase === "stopped" ? [] : [loop])).toBeUndefined()
    },
  )

  it.each<Loop["phase"]>(["running", "deciding", "waiting", "restarting"])(
    "not while another loop of the project is %s",
    (phase) => {
      const ended = at("stopped")
      expect(rollbackRefusal(ended, [at(phase, "ses_b")])).toBe(
        `Another Ralph loop of this project is ${phase} (in session ses_b): a rollback would rewrite files under it. /ralph-pause or /cancel-ralph that loop first, then /ralph-rollback here.`,
      )
    },
  )

  it("another loop that is paused does not stand in the way", () => {
    const loop = at("paused")
    expect(rollbackRefusal(loop, [loop, at("paused", "ses_b")])).toBeUndefined()
  })
})
