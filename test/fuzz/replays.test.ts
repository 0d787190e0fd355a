// Hand-written replays of the classic event orders, through the same simulator as the fuzzer (so
// every invariant of sim.ts is checked at every step here too), plus what each case must end in.
import { describe, expect, it } from "vitest"
import type { Loop } from "../../src/loop/loop.js"
import type { LoopManager } from "../../src/loop/manager.js"
import { markCurrentDone } from "../../src/plan/plan.js"
import { END_FILES_WAIT_MS } from "../../src/worktrees/lifecycle.js"
import { runScenario, type Action, type RunConfig, type World } from "./sim.js"
import { config, LOOP, nth, S } from "./steps.js"

const run = (actions: Action[], cfg: RunConfig = config(), patch?: (manager: LoopManager) => void): Promise<World> =>
  runScenario(cfg, actions, patch ? { patch } : {})

const first = (world: World): Loop => world.loops[0]?.loop as Loop
const sessionsPrompted = (world: World) => world.prompts.map((p) => p.sessionID)

describe("replays: classic event orders", () => {
  it("an idle with no busy before it is not a turn end; the real turn is answered once, duplicates are not", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh", { idles: 3, settle: true }), // the /ralph turn, with two duplicate idles
      S.idle("ses_A"), // OpenCode re-publishes idle for an idle session (abort, status set): no busy since the prompt
      S.idle("ses_A"),
      S.settle(),
      S.turn("ses_A", "fresh", { idles: 2, settle: true }),
      S.idle("ses_A"),
      S.settle(),
    ])
    expect(sessionsPrompted(world)).toEqual(["ses_A", "ses_A"])
    expect(first(world)).toMatchObject({ phase: "running", iteration: 3, retries: 2 })
  })

  it.each(["status-first", "idle-first", "status-only", "idle-only"] as const)(
    "the end of a turn announced %s (session.status idle, session.idle) is answered once",
    async (order) => {
      const other = order === "idle-first" || order === "idle-only" ? "status-only" : "idle-only"
      const world = await run([
        S.ralph("ses_A"),
        S.turn("ses_A", "fresh", { idleOrder: order, settle: true }),
        S.idle("ses_A", other), // a late announcement of the same end, the other way
        S.settle(),
        S.turn("ses_A", "fresh", { idleOrder: order, settle: true }),
      ])
      expect(sessionsPrompted(world)).toEqual(["ses_A", "ses_A"])
      expect(first(world)).toMatchObject({ phase: "running", iteration: 3, retries: 2 })
    },
  )

  it("abort mid-stream (Esc) pauses and sends nothing; the user's next message resumes the loop", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "interrupted", { error: "aborted", idles: 2, settle: true }),
      S.idle("ses_A"), // abort publishes idle again
      S.settle(),
    ])
    expect(world.prompts).toHaveLength(0)
    expect(first(world)).toMatchObject({ phase: "paused" })

    const resumed = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "interrupted", { error: "aborted", idles: 2, settle: true }),
      S.user("ses_A"),
      S.turn("ses_A", "fresh", { settle: true }),
    ])
    expect(sessionsPrompted(resumed)).toEqual(["ses_A"])
    expect(first(resumed)).toMatchObject({ phase: "running", iteration: 2 })
  })

  it("a session.error arriving after the idle (and after the plugin's prompt) never adds a prompt", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh", { settle: true }),
      S.error("ses_A", "rate-limit"), // late: belongs to the turn already answered
      S.idle("ses_A"),
      S.settle(),
    ])
    expect(sessionsPrompted(world)).toEqual(["ses_A"])
    // The next turn ends: one more decision, never two prompts for it.
    const next = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh", { settle: true }),
      S.error("ses_A", "auth"),
      S.turn("ses_A", "fresh", { idles: 2, settle: true }),
    ])
    expect(next.prompts.length).toBeLessThanOrEqual(2)
    expect(["running", "waiting", "stopped"]).toContain(first(next).phase)
  })

  it("a context overflow with OpenCode's compaction, then idle: the loop goes on in a fresh session even with strategy continue", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.busy("ses_A"),
      S.reply("ses_A", "fresh"),
      S.error("ses_A", "overflow"),
      S.compacted("ses_A", true),
      S.idle("ses_A"),
      S.settle(),
      S.idle("ses_A"), // a late idle of the old session
      S.settle(),
    ])
    expect(world.prompts).toHaveLength(1)
    const loop = first(world)
    expect(loop.sessionID).not.toBe("ses_A")
    expect(loop.lineage).toEqual(["ses_A"])
    expect(sessionsPrompted(world)).toEqual([loop.sessionID])
  })

  it("idles of child (subagent) sessions are never answered, and /ralph in a child starts nothing", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.busy("ses_A"),
      S.child("ses_A"), // nth(2)
      S.busy(nth(2)),
      S.idle(nth(2)),
      S.idle(nth(2)),
      S.ralph(nth(2)),
      S.turn(nth(2), "fresh", { settle: true }),
      S.settle(),
    ])
    expect(world.prompts).toHaveLength(0)
    expect(world.loops).toHaveLength(1)
    const done = await run([
      S.ralph("ses_A"),
      S.child("ses_A"),
      S.turn(nth(2), "fresh", { idles: 2 }),
      S.turn("ses_A", "fresh", { settle: true }),
    ])
    expect(sessionsPrompted(done)).toEqual(["ses_A"])
  })

  it("two loops in two sessions answer only their own turns", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.ralph("ses_B"),
      S.busy("ses_A"),
      S.busy("ses_B"),
      S.reply("ses_B"),
      S.idle("ses_B"),
      S.reply("ses_A"),
      S.idle("ses_A"),
      S.settle(),
      S.cancel("ses_A"),
      S.turn("ses_A", "fresh", { settle: true }),
      S.turn("ses_B", "fresh", { settle: true }),
    ])
    expect(sessionsPrompted(world).sort()).toEqual(["ses_A", "ses_B", "ses_B"])
    expect(world.loops.map((t) => [t.loop.id, t.loop.phase, t.loop.stopReason])).toEqual([
      ["ses_A", "stopped", "cancelled"],
      ["ses_B", "running", undefined],
    ])
  })

  it("/cancel-ralph while the runner reads the turn: nothing is sent", async () => {
    const world = await run(
      [S.ralph("ses_A"), S.turn("ses_A"), S.stepTo("messages"), S.cancel("ses_A"), S.settle()],
      config({ settleMs: 150 }),
    )
    expect(world.prompts).toHaveLength(0)
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "cancelled" })
  })

  it("/cancel-ralph while the runner summarizes for a fresh session: no session is prompted", async () => {
    const world = await run(
      [S.ralph("ses_A"), S.turn("ses_A"), S.stepTo("summarize"), S.cancel("ses_A"), S.settle()],
      config({ strategy: "recreate" }),
    )
    expect(world.prompts).toHaveLength(0)
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "cancelled", sessionID: "ses_A" })
  })

  it("/cancel-ralph once the fresh session exists, before the loop moved in: that empty session is deleted, the loop's own is kept", async () => {
    // Found by the soak: the empty "Ralph 2/…" session stayed in the session list for good.
    const world = await run(
      [S.ralph("ses_A"), S.turn("ses_A"), S.stepTo("select-session"), S.cancel("ses_A"), S.settle()],
      config({ strategy: "recreate" }),
    )
    expect(world.prompts).toHaveLength(0)
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "cancelled", sessionID: "ses_A", retiring: [] })
    // ses_A, ses_B, and the fresh session the restart created.
    expect(world.order.map((s) => s.deleted)).toEqual([false, false, true])
  })

  it("a fresh restart has its decision on disk before it asks for the summary", async () => {
    // Found by the soak: with many loops the state writes lagged behind; OpenCode killed after the
    // summary and the new session found the loop "running" on disk, decided the turn again (reading
    // the plugin's own summary as a context overflow) and left the new session behind for good.
    const world = await run([S.ralph("ses_A"), S.turn("ses_A"), S.settle()], config({ strategy: "recreate" }))
    const steps = world.trace
      .map((line) => /^\s*job \d+: (persisted|summarize|create-session) /.exec(line)?.[1])
      .filter(Boolean)
    expect(steps).toEqual(["persisted", "summarize", "create-session", "persisted", "persisted"])
  })

  it("/cancel-ralph after the loop moved into its fresh session, before the prompt: the old session is still archived and deleted", async () => {
    const world = await run(
      [S.ralph("ses_A"), S.turn("ses_A"), S.stepTo("persisted", 3), S.cancel(LOOP), S.settle()],
      config({ strategy: "recreate" }),
    )
    expect(world.prompts).toHaveLength(0)
    // Iteration 2 was counted, but its prompt never went out: the loop ended at iteration 1.
    expect(first(world)).toMatchObject({
      phase: "stopped",
      stopReason: "cancelled",
      iteration: 1,
      retries: 0,
      sessionID: world.order[2]?.id,
      lineage: ["ses_A"],
      retiring: [],
    })
    expect(world.order.map((s) => s.deleted)).toEqual([true, false, false])
  })

  it("a second /ralph mid-turn replaces the loop; the old one's pending decision sends nothing", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.turn("ses_A"),
      S.stepTo("messages"),
      S.ralph("ses_A"),
      S.settle(),
      S.turn("ses_A", "fresh", { settle: true }),
    ])
    expect(world.loops.map((t) => [t.loop.phase, t.loop.stopReason])).toEqual([
      ["stopped", "replaced"],
      ["running", undefined],
    ])
    expect(world.prompts.map((p) => p.loop)).toEqual(["loop 2 (ses_A)"])
  })

  it("a stop retitles the loop's last session with how it ended", async () => {
    const done = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh", { settle: true }),
      S.turn("ses_A", "promise", { settle: true }),
    ])
    expect(done.sessions.get("ses_A")?.title).toMatch(/^Ralph ✓ · Build feature \w+ · 2 iterations$/)
    const cancelled = await run([S.ralph("ses_A"), S.cancel("ses_A"), S.settle()])
    expect(cancelled.sessions.get("ses_A")?.title).toMatch(/^Ralph ■ cancelled · Build feature \w+ · 1 iteration$/)
    const limited = await run([S.ralph("ses_A", { maxRetries: 0 }), S.turn("ses_A", "fresh", { settle: true })])
    expect(limited.sessions.get("ses_A")?.title).toMatch(/^Ralph ⚠ limit · /)
    const replaced = await run([S.ralph("ses_A"), S.ralph("ses_A"), S.settle()])
    expect(replaced.sessions.get("ses_A")?.title).toBe("sim")
  })

  it("session.deleted of the loop's session stops it; later idles do nothing", async () => {
    const world = await run([S.ralph("ses_A"), S.busy("ses_A"), S.delete("ses_A"), S.idle("ses_A"), S.settle()])
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "session-deleted" })
    expect(world.prompts).toHaveLength(0)
  })

  it("a rate limit waits, and the wake-up resumes the same iteration with one prompt", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh", { error: "rate-limit", settle: true }),
      S.wake(),
      S.settle(),
    ])
    expect(sessionsPrompted(world)).toEqual(["ses_A"])
    expect(first(world)).toMatchObject({ phase: "running", iteration: 1, retries: 0 })
  })

  it("a permission asked during the turn: the idle sends nothing until it is answered and a new turn ends", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.busy("ses_A"),
      S.ask("ses_A", 1),
      S.reply("ses_A"),
      S.idle("ses_A"),
      S.settle(),
      S.answer("ses_A", 1),
      S.turn("ses_A", "fresh", { settle: true }),
    ])
    expect(sessionsPrompted(world)).toEqual(["ses_A"])
  })

  it("the session goes busy while the next iteration's state is written: that turn is watched, no prompt joins it", async () => {
    // Found by the fuzzer (seed 274288465) once prompts waited for the state file.
    const world = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh"),
      S.stepTo("persisted"), // decided, iteration 2 counted; its state is being written
      S.busy("ses_A"),
      S.settle(),
    ])
    expect(world.prompts).toHaveLength(0)
    expect(first(world)).toMatchObject({ phase: "running", iteration: 2, sawBusy: true })
  })

  it("paused between a prompt and its turn, resumed from the old session: the queued prompt runs, no second one", async () => {
    // Found by the fuzzer (seed 1854485673): /ralph-pause and /ralph-resume before the prompt's busy.
    const world = await run(
      [S.ralph("ses_A"), S.turn("ses_A", "fresh", { settle: true }), S.pause(LOOP), S.resume("ses_A"), S.settle()],
      config({ strategy: "fresh" }),
    )
    expect(world.prompts).toHaveLength(1)
    expect(first(world)).toMatchObject({ phase: "running", iteration: 2 })
  })
})

// Sequences the fuzzer found (shrunk by hand to their core). Each one breaks an invariant of the
// current src/: these tests fail until the bug is fixed, then guard against it.
describe("replays: bugs found by the fuzzer", () => {
  it("/ralph-pause while the runner verifies the state file after a /ralph-resume: the loop must stay paused", async () => {
    // resumeRequested → the resume branch of onTurnEnded calls goOn with no phase re-check after store.verify.
    await run([
      S.ralph("ses_A"),
      S.pause("ses_A"),
      S.resume("ses_A"),
      S.busy("ses_A"),
      S.idle("ses_A"), // the /ralph-resume turn ends: claimed
      S.stepTo("verify-state"),
      S.pause("ses_A"),
      S.settle(),
    ])
  })

  it("/cancel-ralph while the runner verifies the state file after a /ralph-resume: nothing may be sent", async () => {
    await run([
      S.ralph("ses_A"),
      S.pause("ses_A"),
      S.resume("ses_A"),
      S.busy("ses_A"),
      S.idle("ses_A"),
      S.stepTo("verify-state"),
      S.cancel("ses_A"),
      S.settle(),
    ])
  })

  it("/ralph-resume of a circuit-breaker wait must not start an iteration past maxRetries", async () => {
    // The breaker opens before the budgets are checked; wake() re-checks them, the /ralph-resume path does not.
    await run(
      [
        S.ralph("ses_A"),
        S.turn("ses_A", "same", { error: "rate-limit", settle: true }),
        S.resume("ses_A"),
        S.turn("ses_A", "fresh", { settle: true }),
      ],
      config({ maxRetries: 0, sameErrorThreshold: 1, strategy: "recreate" }),
    )
  })

  it("/ralph typed into the fresh session before the runner moves the loop there must not orphan the new loop", async () => {
    // The new session exists (nth(2)); the user starts a loop there; then selectSession returns and
    // nextIteration would move the old loop into the same session.
    await run(
      [S.ralph("ses_A"), S.turn("ses_A"), S.stepTo("select-session"), S.ralph(nth(2)), S.settle()],
      config({ strategy: "recreate" }),
    )
  })

  it("a wake-up that finds the session busy must not un-pause a loop the user paused meanwhile", async () => {
    await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh", { error: "rate-limit", settle: true }), // backoff wait
      S.busy("ses_A"), // the user is typing / OpenCode is working
      S.wake(), // wake(): isIdle pending
      S.pause("ses_A"),
      S.settle(), // isIdle → false → keepWatching
    ])
  })

  it("the recreate retirement must not delete the old session once the user started a new loop there", async () => {
    // The prompt went to the new session; the retirement of ses_A waits for it to be idle when the user types /ralph there.
    await run(
      [S.ralph("ses_A"), S.turn("ses_A"), S.stepTo("is-idle"), S.ralph("ses_A"), S.settle()],
      config({ strategy: "recreate" }),
    )
  })

  it("a loop cancelled while its old session waits to be retired, then OpenCode killed: the old session is archived and deleted after the restart", async () => {
    // Found while building the soak: recovery took back only the loops not ended, so this old session stayed for good.
    const world = await run(
      [S.ralph("ses_A"), S.turn("ses_A"), S.stepTo("is-idle"), S.cancel(LOOP), S.restart(), S.settle()],
      config({ strategy: "recreate" }),
    )
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "cancelled" })
    expect(world.sessions.get("ses_A")?.deleted).toBe(true)
    expect(world.storedLoops().map((l) => [l.phase, l.retiring])).toEqual([["stopped", []]])
  })
})

describe("replays: owners (issue 47)", () => {
  it("the loop's OpenCode dies mid-turn while another is open: that one takes it back at its beat, once, and it goes on", async () => {
    const world = await run(
      [
        S.ralph("ses_A"),
        S.busy("ses_A"),
        { type: "owner-dies" },
        { type: "beat" },
        S.settle(),
        S.turn(LOOP, "promise"),
      ],
      config(),
    )
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "completed" })
    // The plugin's one prompt: the take-back's, for the turn the death cut off (the first was /ralph's own).
    expect(world.prompts.length).toBe(1)
  })

  it("a heartbeat while this OpenCode runs the loop takes nothing back", async () => {
    const world = await run([S.ralph("ses_A"), { type: "beat" }, S.settle(), S.turn("ses_A", "promise")], config())
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "completed" })
    expect(world.prompts.length).toBe(0)
  })
})

describe("replays: the continue strategy with checks", () => {
  const withChecks = config({ strategy: "continue", checks: [{ name: "test", kind: "test", command: "sim test" }] })

  it("a message the user sends while the gotchas are read (a git call) stops the loop's prompt: their turn is watched", async () => {
    // Issue 11: continueInPlace re-checked only the phase after its await, not the user's epoch.
    const world = await run(
      [
        S.ralph("ses_A"),
        S.turn("ses_A", "promise", { edit: true }),
        S.stepTo("changed-files"),
        S.user("ses_A"),
        S.settle(),
      ],
      withChecks,
    )
    expect(world.prompts).toHaveLength(0)
    expect(first(world)).toMatchObject({ phase: "running", iteration: 1, sawBusy: true })
  })

  it("a failing check after the promise keeps the loop going with the failure; the fix completes it", async () => {
    const world = await run(
      [
        S.ralph("ses_A"),
        S.turn("ses_A", "promise", { edit: true, settle: true }),
        S.turn("ses_A", "promise", { edit: true, settle: true }),
      ],
      withChecks,
    )
    expect(sessionsPrompted(world)).toEqual(["ses_A"])
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "completed", iteration: 2 })
    expect(first(world).gotchas.map((g) => g.files)).toEqual([["src/a.ts"]])
  })
})

describe("replays: recovery", () => {
  it("a prompt re-sent after a restart does not override a /ralph-pause typed while the old summary was read", async () => {
    const world = await run(
      [
        S.ralph("ses_A"),
        S.turn("ses_A", "fresh"),
        S.stepTo("persisted", 3), // the next iteration is counted in its fresh session; its prompt is not sent yet (#1: the restart decided, #2: its new session)
        S.restart(),
        S.step(2), // recovery: its grace sleep, then the session is there — it spawns the loop's own recovery
        S.stepTo("read-summary"), // which re-sends the prompt: it reads the old session's summary first
        S.pause(LOOP),
        S.settle(),
      ],
      config({ strategy: "fresh" }),
    )
    expect(world.prompts).toHaveLength(0)
    expect(first(world)).toMatchObject({ phase: "paused" })
  })
})

describe("replays: plan loops", () => {
  it("one story per accepted promise, in priority and dependsOn order; a restart keeps the place; a story's own failing check keeps it", async () => {
    const world = await run([
      S.ralph("ses_A", { plan: true }),
      S.turn("ses_A", "promise", { settle: true }), // S1 (S2 has the better priority but waits for S1)
      S.restart(),
      S.settle(),
      S.turn("ses_A", "promise", { settle: true }), // S2
      S.turn("ses_A", "promise", { settle: true }), // S3: its own check fails (odd work tree)
      S.turn("ses_A", "promise", { settle: true }), // S3 again: it passes
    ])
    const loop = first(world)
    expect(loop).toMatchObject({ phase: "stopped", stopReason: "completed" })
    expect(loop.plan?.done.map((d) => [d.id, d.checks])).toEqual([
      ["S1", []],
      ["S2", []],
      ["S3", ["own"]],
    ])
    expect(world.progressEntries.map((e) => e.story?.id)).toEqual(["S1", "S2", "S3", "S3"])
  })

  it("a turn that claims nothing never marks a story", async () => {
    const world = await run([
      S.ralph("ses_A", { plan: true }),
      S.turn("ses_A", "fresh", { settle: true }),
      S.turn("ses_A", "same", { settle: true }),
    ])
    expect(first(world).plan?.done).toEqual([])
  })
})

// The invariants have teeth: plant a bug in the manager, and the simulator must catch it.
describe("replays: the invariants catch planted bugs", () => {
  const expectViolation = async (
    invariant: number,
    actions: Action[],
    patch: (manager: LoopManager) => void,
    cfg = config(),
  ) => {
    await expect(run(actions, cfg, patch)).rejects.toThrow(new RegExp(`^invariant ${invariant}:`))
  }

  it("1: a duplicate idle answered twice", async () => {
    await expectViolation(
      1,
      [S.ralph("ses_A"), S.turn("ses_A", "fresh", { settle: true }), S.idle("ses_A"), S.settle()],
      (m) => {
        const takeIdle = m.takeIdle.bind(m)
        m.takeIdle = (id) => {
          const loop = m.get(id)
          if (loop?.phase === "running") loop.sawBusy = true
          return takeIdle(id)
        }
      },
    )
  })

  it("3: a cancelled loop that comes back", async () => {
    await expectViolation(3, [S.ralph("ses_A"), S.cancel("ses_A")], (m) => {
      const stop = m.stop.bind(m)
      m.stop = (loop, reason, detail) => {
        stop(loop, reason, detail)
        loop.phase = "running"
      }
    })
  })

  it("4: an iteration counted twice", async () => {
    await expectViolation(
      4,
      [S.ralph("ses_A"), S.turn("ses_A", "fresh", { settle: true }), S.turn("ses_A", "fresh", { settle: true })],
      (m) => {
        const next = m.nextIteration.bind(m)
        m.nextIteration = (loop, sessionID, now, retireOld) => {
          const moved = next(loop, sessionID, now, retireOld)
          loop.iteration += 1
          return moved
        }
      },
      config({ maxRetries: 5, maxIterations: 2 }),
    )
  })

  /** A stop that leaves the loop in the manager's map. */
  const keepMapped = (m: LoopManager) => {
    const stop = m.stop.bind(m)
    m.stop = (loop, reason, detail) => {
      stop(loop, reason, detail)
      ;(m as unknown as { bySession: Map<string, Loop> }).bySession.set(loop.sessionID, loop)
    }
  }

  it("6: a stopped loop left in the manager's map", async () => {
    await expectViolation(6, [S.ralph("ses_A"), S.delete("ses_A")], keepMapped)
  })

  it("14: a session retitled as ended while a loop lives in it", async () => {
    await expectViolation(14, [S.ralph("ses_A"), S.cancel("ses_A")], keepMapped)
  })

  it("7: a deleted session that does not stop its loop", async () => {
    await expectViolation(7, [S.ralph("ses_A"), S.delete("ses_A")], (m) => {
      m.sessionDeleted = () => undefined
    })
  })

  it("8: a pause that does not hold", async () => {
    await expectViolation(8, [S.ralph("ses_A"), S.pause("ses_A"), S.turn("ses_A", "fresh", { settle: true })], (m) => {
      const pause = m.pause.bind(m)
      m.pause = (loop, reason, cause) => {
        pause(loop, reason, cause)
        loop.phase = "running"
        loop.sawBusy = false
      }
    })
  })

  it("2: a prompt for a loop the manager no longer maps", async () => {
    await expectViolation(2, [S.ralph("ses_A"), S.turn("ses_A", "fresh", { settle: true })], (m) => {
      // Planted where the prompt goes out (recordCall comes right before promptAsync).
      const record = m.recordCall.bind(m)
      m.recordCall = (loop, now) => {
        record(loop, now)
        ;(m as unknown as { bySession: Map<string, Loop> }).bySession.delete(loop.sessionID)
      }
    })
  })

  it("13: a story marked done on a turn that claimed nothing", async () => {
    await expectViolation(13, [S.ralph("ses_A", { plan: true }), S.turn("ses_A", "fresh", { settle: true })], (m) => {
      const decided = m.decided.bind(m)
      m.decided = (loop, turn, update, decision) =>
        decided(
          loop,
          turn,
          loop.plan ? { ...update, plan: markCurrentDone(loop.plan, loop.iteration, []) } : update,
          decision,
        )
    })
  })

  it("5: a loop left deciding when the runner has nothing more to do", async () => {
    // A permission is pending at the idle: wait-for-user → keepWatching, planted to do nothing.
    await expectViolation(
      5,
      [S.ralph("ses_A"), S.busy("ses_A"), S.ask("ses_A"), S.reply("ses_A"), S.idle("ses_A")],
      (m) => {
        m.keepWatching = () => undefined
      },
    )
  })
})

describe("replays: continuations outside /ralph", () => {
  const todos = (open: number, completed = 0) => ({ todos: { open, completed } })
  /** ses_B has no loop: the user writes, the model stops with open todos; its continuation job waits in the countdown. */
  const stoppedWithTodos = (open = 2): Action[] => [
    S.user("ses_B"),
    S.turn("ses_B", "fresh", todos(open)),
    S.stepTo("sleep"),
  ]
  const sentTo = (world: World) => world.continuations.map((c) => `${c.feature} ${c.sessionID}`)

  it("open todos: a countdown, then one continuation naming them; none once they are completed", async () => {
    const world = await run(
      [...stoppedWithTodos(2), S.settle(), S.turn("ses_B", "fresh", { ...todos(0, 2), settle: true })],
      config({ todoContinuationDelaySeconds: 3 }),
    )
    expect(sentTo(world)).toEqual(["todo-continuation ses_B"])
    expect(world.continuations[0]?.text.match(/^- \[pending\] step \w+$/gm)).toHaveLength(2)
    expect(world.trace.filter((l) => l.includes("sleep 3000 ms"))).toHaveLength(1)
  })

  it("a model that never completes a todo: exactly todoContinuationMax continuations, then silence", async () => {
    const turns = Array.from({ length: 5 }, () => S.turn("ses_B", "fresh", { ...todos(1), settle: true }))
    const world = await run(
      [S.user("ses_B"), ...turns],
      config({ todoContinuationMax: 3, todoContinuationDelaySeconds: 0 }),
    )
    expect(sentTo(world)).toEqual(Array(3).fill("todo-continuation ses_B"))
    expect(world.trace.filter((l) => l.includes("todo continuation of ses_B stopped"))).toHaveLength(1)
  })

  it("typing, Esc, the session working again or /cancel-ralph during the countdown: no continuation", async () => {
    for (const interrupt of [S.user("ses_B"), S.idle("ses_B"), S.busy("ses_B"), S.cancel("ses_B"), S.ask("ses_B")]) {
      const world = await run([...stoppedWithTodos(), interrupt, S.settle()])
      expect(world.continuations).toEqual([])
      expect(world.trace.some((l) => l.includes("todo continuation of ses_B cancelled"))).toBe(true)
    }
  })

  it("a loop started during the countdown (/ralph or the keyword) owns the session: no continuation", async () => {
    for (const start of [S.ralph("ses_B"), S.keyword("ses_B")]) {
      const world = await run([...stoppedWithTodos(), start, S.settle()])
      expect(world.continuations).toEqual([])
      expect(world.loops.map((t) => t.loop.sessionID)).toEqual(["ses_B"])
    }
  })

  it("an aborted or failed turn, a child session, or the feature switched off: no continuation, and when off no todo read", async () => {
    const aborted = await run([
      S.user("ses_B"),
      S.turn("ses_B", "interrupted", { ...todos(2), error: "aborted", settle: true }),
    ])
    expect(aborted.continuations).toEqual([])
    const failed = await run([
      S.user("ses_B"),
      S.turn("ses_B", "fresh", { ...todos(2), error: "rate-limit", settle: true }),
    ])
    expect(failed.continuations).toEqual([])
    const child = await run([S.child("ses_B"), S.user(nth(2)), S.turn(nth(2), "fresh", { ...todos(2), settle: true })])
    expect(child.continuations).toEqual([])
    const off = await run(
      [...stoppedWithTodos().slice(0, 2), S.settle()],
      config({ disabledFeatures: ["todo-continuation"] }),
    )
    expect(off.continuations).toEqual([])
    expect(off.trace.some((l) => l.includes("todos ses_B"))).toBe(false)
  })

  it("auto-continue: a turn that changed files and fails the typecheck is continued with the feedback line until it passes; off by default", async () => {
    const types = [{ name: "types", kind: "typecheck" as const, command: "sim typecheck" }]
    // Each edit flips the simulated typecheck: odd work trees fail. The work tree is sampled when the user writes.
    const world = await run(
      [
        S.user("ses_B"),
        S.settle(),
        S.turn("ses_B", "fresh", { edit: true, settle: true }),
        S.turn("ses_B", "fresh", { edit: true, settle: true }),
      ],
      config({ autoContinue: true, autoContinueMax: 3, checks: types, disabledFeatures: ["todo-continuation"] }),
    )
    expect(sentTo(world)).toEqual(["auto-continue ses_B"])
    expect(world.continuations[0]?.text).toMatch(
      /^Ralph Loop: AUTO-CONTINUE \| \d+ error\(s\) remaining \| Next: fix src\/a\.ts/,
    )
    const off = await run(
      [S.user("ses_B"), S.settle(), S.turn("ses_B", "fresh", { edit: true, settle: true })],
      config({ checks: types }),
    )
    expect(off.continuations).toEqual([])
    expect(off.trace.some((l) => /auto-checks|work-tree/.test(l))).toBe(false)
  })
})

describe("replays: review", () => {
  const reviewed = (world: World) => [...world.reviewSessions]
  const live = (world: World) => new Set(world.order.filter((s) => !s.deleted).map((s) => s.id))

  it("the first review rejects (the loop goes on with its reasons), the second approves and the loop completes; both sessions are gone", async () => {
    const world = await run([
      S.ralph("ses_A", { review: true }),
      S.turn("ses_A", "promise", { settle: true }),
      S.turn("ses_A", "promise", { settle: true }),
    ])
    expect(first(world)).toMatchObject({
      phase: "stopped",
      stopReason: "completed",
      iteration: 2,
      review: { reviews: 2, rejections: 0 },
    })
    expect(sessionsPrompted(world)).toEqual(["ses_A"])
    expect(reviewed(world)).toHaveLength(2)
    for (const id of reviewed(world)) expect(live(world).has(id)).toBe(false)
  })

  it("/cancel-ralph while the reviewer answers: the loop stops, nothing is sent, the review session is deleted", async () => {
    const world = await run([
      S.ralph("ses_A", { review: true }),
      S.turn("ses_A", "promise"),
      S.stepTo("review-ask"),
      S.cancel("ses_A"),
      S.settle(),
    ])
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "cancelled" })
    expect(world.prompts).toHaveLength(0)
    expect(reviewed(world)).toHaveLength(1)
    expect(live(world).has(reviewed(world)[0] as string)).toBe(false)
  })

  it("OpenCode restarts mid-review: recovery deletes the review session and the claim is reviewed again", async () => {
    const world = await run([
      S.ralph("ses_A", { review: true }),
      S.turn("ses_A", "promise"),
      S.stepTo("review-ask"),
      S.restart(),
      S.settle(),
    ])
    expect(reviewed(world).length).toBeGreaterThanOrEqual(2)
    for (const id of reviewed(world)) expect(live(world).has(id)).toBe(false)
    expect(first(world).review?.session).toBeUndefined()
  })
})

describe("replays: /ralph-rollback", () => {
  /** A loop that decided an iteration, then waits out a rate limit (checkpoints 0, 1, 2): its wake-up timer is armed. */
  const waiting = (): Action[] => [
    S.ralph("ses_A"),
    S.turn("ses_A", "fresh", { settle: true }),
    S.turn("ses_A", "fresh", { error: "rate-limit", settle: true }),
  ]

  it("a rollback of a waiting loop pauses it (its timer gone) before it writes; a wake-up during the restore prompts nothing, and it stays paused", async () => {
    const world = await run([
      ...waiting(),
      S.rollback("ses_A"),
      S.stepTo("checkpoint-restore"),
      S.wake(),
      S.settle(),
      S.wake(),
      S.settle(),
    ])
    expect(world.prompts).toHaveLength(1) // the first iteration's; none after the rate limit
    expect(first(world)).toMatchObject({ phase: "paused", detail: "rolled back to checkpoint 1" })
    expect(world.timers.size).toBe(0)
    expect(world.checkpoints.get("ses_A")?.map((c) => c.number)).toEqual([0, 1, 2, 3])
  })

  it("a wake-up that fires while the rollback reads the checkpoints prompts first: the rollback is refused and writes nothing", async () => {
    const world = await run([
      ...waiting(),
      S.rollback("ses_A"),
      S.stepTo("checkpoints"),
      S.wake(), // the usage limit's timer fires: a wake job beside the rollback
      S.step(6, 1), // the wake goes on and prompts before the rollback's listing returns
      S.settle(),
    ])
    expect(world.prompts).toHaveLength(2)
    expect(first(world)).toMatchObject({ phase: "running" })
    expect(world.checkpoints.get("ses_A")?.map((c) => c.number)).toEqual([0, 1, 2])
  })

  it("the user resuming the loop while the present state is saved: nothing is restored", async () => {
    const world = await run([
      ...waiting(),
      S.rollback("ses_A"),
      S.stepTo("checkpoint-save"),
      S.user("ses_A"),
      S.settle(),
    ])
    expect(first(world)).toMatchObject({ phase: "running" })
    expect(world.checkpoints.get("ses_A")?.map((c) => c.number)).toEqual([0, 1, 2, 3])
    expect(world.trace.some((line) => line.includes("checkpoint-restore"))).toBe(false)
  })

  it("an ended loop is not rolled back while another loop of the project runs", async () => {
    const world = await run([
      S.ralph("ses_A"),
      S.turn("ses_A", "fresh", { settle: true }),
      S.turn("ses_A", "promise", { settle: true }), // the first loop completes
      S.ralph("ses_B"),
      S.rollback("ses_A"),
      S.settle(),
    ])
    expect(first(world)).toMatchObject({ phase: "stopped", stopReason: "completed" })
    expect(world.loops[1]?.loop.phase).toBe("running")
    expect(world.trace.some((line) => /checkpoint-(save|restore)/.test(line))).toBe(false)
  })

  it("23: a rollback that writes before it pauses the loop", async () => {
    await expect(
      run([...waiting(), S.rollback("ses_A"), S.settle()], config(), (m) => {
        m.pause = () => undefined
      }),
    ).rejects.toThrow(
      /^invariant 23: a rollback of loop 1 \(ses_A\) writes the work tree \(checkpoint-save\) while the loop is waiting/,
    )
  })
})

// Worktree loops and parallel plan runs: the main instance's settle, launch and run steps are jobs,
// so a main-tree loop's timers, the user and a restart of OpenCode come between their effects.
describe("replays: worktree loops and a parallel run beside a loop in the project's tree", () => {
  /** A loop in ses_A; a parallel run of the plan (one story at a time) from ses_B: S1 starts; its loop edits and completes. */
  const s1Completed = (mainTurn: Action[] = [S.turn("ses_A", "fresh", { settle: true })]): Action[] => [
    S.ralph("ses_A"),
    ...mainTurn,
    S.ralph("ses_B", { parallel: 1 }),
    S.settle(),
    S.wt(0, "start"),
    S.wt(0, "edit"),
    S.wt(0, "complete"),
    S.wt(0, "end-files"), // its instance writes its report
    S.tick(), // the watch starts settling S1 (its loop ran in slot-1, on the branch ralph/story-s1)
  ]
  const lineOf = (world: World, pattern: RegExp) => world.trace.findIndex((line) => pattern.test(line))
  const merges = (world: World) =>
    world.trace.filter((line) => /: worktree-merge ralph\/story-s1 \(merge\) → ok/.test(line)).length
  /**
   * S1 merged once and marked done, its merged branch deleted; S2 (which depends on it) started after the mark, in
   * the same slot (slot-1 reset for it: S1 has left the slot) — or, `inNewSlot`, in a slot of its own (slot-2) when
   * the run marked S1 before slot-1 was settled. `settled`: what S1's worktree.json says last (settled again after a
   * restart, its branch has "nothing" left to merge).
   */
  const s1MergedThenS2 = (world: World, settled = "merged", inNewSlot = false) => {
    expect(merges(world)).toBe(1)
    expect(world.marked).toEqual(["S1"])
    expect(world.worktreeLoops.map((w) => [w.name, w.story, w.outcome?.result, w.removed, w.branch.exists])).toEqual([
      ["slot-1", "S1", settled, !inNewSlot, false],
      [inNewSlot ? "slot-2" : "slot-1", "S2", undefined, false, true],
    ])
    const s2Start = inNewSlot ? /worktree-launch slot-2/ : /slot-reset slot-1 → S2/
    expect(lineOf(world, /parallel-mark \[S1\]/)).toBeLessThan(lineOf(world, s2Start))
  }

  it.each(["transient", "rate-limit"] as const)(
    "a %s wait of the main-tree loop wakes during the merge: its prompt goes out, the merge goes on, S1 is marked and S2 starts",
    async (error) => {
      const world = await run([
        ...s1Completed([S.turn("ses_A", "fresh", { error, settle: true })]),
        S.stepTo("worktree-merge"), // the merge into the user's branch is under way
        S.wake(),
        S.stepTo("prompt"), // the woken loop prompts before the merge comes back
        S.settle(),
      ])
      expect(sessionsPrompted(world)).toEqual(["ses_A"])
      expect(lineOf(world, /PROMPT → ses_A/)).toBeLessThan(
        lineOf(world, /worktree-merge ralph\/story-s1 \(merge\) → ok/),
      )
      expect(first(world).phase).toBe("running")
      s1MergedThenS2(world)
    },
  )

  it("the user's turn in the main-tree loop's session during the merge: the loop answers it once, the merge goes on", async () => {
    const world = await run([
      ...s1Completed(),
      S.stepTo("worktree-merge"),
      S.user("ses_A"),
      S.turn("ses_A", "fresh"),
      S.stepTo("prompt"),
      S.settle(),
    ])
    expect(sessionsPrompted(world)).toEqual(["ses_A", "ses_A"])
    expect(lineOf(world, /PROMPT → ses_A/)).toBeLessThan(lineOf(world, /worktree-merge ralph\/story-s1 \(merge\) → ok/))
    s1MergedThenS2(world)
  })

  it.each([
    ["its files are archived", [S.stepTo("worktree-archive")], "nothing", false],
    ["its outcome is written in its archive", [S.stepTo("worktree-record")], "nothing", false],
    // The outcome is in the archive already (written before the slot's), where the run finds it and marks S1; the
    // slot, not settled yet, is settled again by the new watch, and S2 has started meanwhile in a slot of its own.
    ["its outcome is written in the slot", [S.stepTo("worktree-record", 2)], "nothing", true],
    // Settled, not parked yet (the slot is still on S1's branch): S2's reset parks it.
    ["the slot leaves S1's branch (slot-park)", [S.stepTo("slot-park")], "merged", false],
    // Parked: its last effect done, the settling job ends.
    ["the run hears of it", [S.stepTo("slot-park"), S.step()], "merged", false],
    // The run's step that marks the plan is the newest job then.
    ["the story is marked in the plan", [S.stepTo("slot-park"), S.step(), S.stepTo("parallel-mark")], "merged", false],
  ] as const)(
    "OpenCode killed after S1's merge, before %s: after the restart S1 is marked done once and S2 starts",
    async (_what, moment, settled, inNewSlot) => {
      const world = await run([
        ...s1Completed(),
        ...moment,
        S.restart(),
        S.settle(),
        S.tick(), // the new instance's watch: a worktree still there is settled again ("nothing" left to merge)
        S.settle(),
      ])
      s1MergedThenS2(world, settled, inNewSlot)
    },
  )

  it.each([
    ["complete", "merged", false], // merged: its branch is deleted as the slot leaves it
    ["stop", "kept", true], // stopped by a limit: its branch is kept, not merged
  ] as const)(
    "28: a worktree loop's end (%s) is settled only once its instance wrote its report, or after END_FILES_WAIT_MS",
    async (end, result, branchKept) => {
      // Archived and removed before, its report was missing from merged/, and git's removal of the
      // worktree met the instance's writes ("Directory not empty"). A loop stopped by a limit was not waited for.
      /** S1's worktree loop started by a parallel run, edits, and ends with `end`; then `after`. */
      const ended = (...after: Action[]) =>
        run([S.ralph("ses_B", { parallel: 1 }), S.settle(), S.wt(0, "start"), S.wt(0, "edit"), S.wt(0, end), ...after])
      const early = await ended(S.tick(), S.settle())
      expect(early.worktreeLoops.map((w) => [w.name, w.story, w.outcome?.result, w.removed])).toEqual([
        ["slot-1", "S1", undefined, false],
      ])
      const settled = { name: "slot-1", story: "S1", outcome: { result }, branch: { exists: branchKept } }
      const reported = await ended(S.tick(), S.settle(), S.wt(0, "end-files"), S.tick(), S.settle())
      expect(reported.worktreeLoops[0]).toMatchObject(settled)
      // Its instance died before writing them: settled all the same, once waited for long enough.
      const waited = await ended(S.advance(END_FILES_WAIT_MS), S.tick(), S.settle())
      expect(waited.worktreeLoops[0]).toMatchObject(settled)
    },
  )

  it("OpenCode restarts while S1's loop runs: the new instance's watch wakes S1's instance once, through the runner (an effect the simulator answers)", async () => {
    const world = await run([
      S.ralph("ses_B", { parallel: 1 }),
      S.settle(),
      S.wt(0, "start"),
      S.restart(),
      S.settle(),
      S.tick(),
      S.settle(),
      S.tick(),
      S.settle(),
    ])
    expect(world.trace.filter((line) => /: worktree-wake slot-1 → /.test(line))).toHaveLength(1)
    expect(world.worktreeLoops.map((w) => [w.name, w.story, w.loop?.phase])).toEqual([["slot-1", "S1", "running"]])
  })

  it("OpenCode killed after a story's worktree is made and its loop started there, before the run's step ended: the story is not lost nor failed, its merge marks it", async () => {
    // Found by the fuzzer: the run wrote its record only after starting its stories, so this restart
    // lost the run (or, later in a run, failed the story whose worktree loop went on and was merged).
    const world = await run([
      S.ralph("ses_B", { parallel: 1 }),
      S.stepTo("worktree-launch"),
      S.step(1, 1), // S1's worktree is made (job #1 is the run's start; #0 the recovery job), its /ralph sent
      S.wt(0, "start"), // its instance saved the loop (after the restart, a start cut off never does)
      S.restart(),
      S.settle(),
      S.wt(0, "edit"),
      S.wt(0, "complete"),
      S.wt(0, "end-files"),
      S.tick(),
      S.settle(),
    ])
    s1MergedThenS2(world)
  })

  it("27: a worktree loop's start cut off by a restart holds no place; a story started in it after the restart is the one live loop", async () => {
    // Found by the fuzzer (seed 825106823): the simulator let the cut start's instance save its loop after
    // the restart, beside the story the run had started in its place — a /ralph that died with the process.
    const world = await run(
      [
        S.ralph("ses_A", { worktree: true }),
        S.stepTo("worktree-launch"),
        S.step(1, 1), // the worktree is made (#0 is the recovery job); its /ralph is sent, no loop saved yet
        S.ralph("ses_B", { parallel: 1 }),
        // #1 is the run's look for a slot for S1; at #2 S1 is in the run's record, and the count of live loops is
        // asked (full: 1 of 1)
        S.stepTo("worktrees", 2),
        S.restart(), // the worktree's /ralph dies with the process: its start is cut off ("unstarted")
        S.settle(), // the run takes up S1: its worktree was never made; it starts now, in the free place
        S.wt(0, "start"), // nothing sends the cut start's /ralph again: no loop is saved there
        S.tick(), // the watch records the cut start failed
        S.settle(),
      ],
      config({ maxParallelLoops: 1 }),
    )
    expect(world.worktreeLoops.map((w) => [w.story ?? "--worktree", w.loop?.phase, w.outcome?.result])).toEqual([
      ["--worktree", undefined, "failed"],
      ["S1", "running", undefined],
    ])
  })
})

describe("replays: a resume from outside the loop's session while recovery looks", () => {
  it("a loop taken back paused and resumed at once (the control channel, or an old session of the loop) goes on once: recovery leaves it to the resume", async () => {
    const world = await run(
      [
        S.ralph("ses_A"),
        S.turn("ses_A", "fresh"),
        S.settle(), // iteration 2 runs in its fresh session
        S.pause(LOOP),
        S.settle(),
        S.restart(),
        S.step(1), // recovery has taken the loop back (paused) and asks whether its session is there
        S.resume("ses_A"), // typed in the loop's first session: not the loop's turn, so it goes on now
        S.settle(),
      ],
      config({ strategy: "fresh" }),
    )
    const prompts = world.prompts.length
    expect(first(world)).not.toMatchObject({ phase: "paused" })
    expect(prompts).toBe(1) // the resume's one prompt (recovery going on as well sent a second)
  })
})
