// A parallel plan run on real folders and a real git repository, with OpenCode replaced by a stub
// that records what the run asks of it: what a run takes as its own after a restart, and what
// happens to a story whose worktree loop does not start. Stories run in slots (issue 40): worktrees
// `slot-1`..`slot-N` that take story after story, each story on its branch `ralph/story-<id>`.
import { randomUUID } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Interpreter } from "../../src/engine/interpreter.js"
import { ParallelPlan } from "../../src/worktrees/parallel-plan.js"
import { LoopRunner } from "../../src/engine/runner.js"
import { WorktreeWatch } from "../../src/worktrees/worktree-watch.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import type { RalphContext } from "../../src/engine/context.js"
import type { PlanState } from "../../src/plan/plan.js"
import { parsePlan } from "../../src/plan/plan-reader.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { readWorktreeState, writeWorktreeState } from "../../src/worktrees/worktree-file.js"
import { isLive, readWorktrees, type WorktreeEntry } from "../../src/worktrees/worktree-loops.js"
import { cleanVerdict, stageOf } from "../../src/worktrees/lifecycle.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"
import { git } from "../git-fixture.js"

const tmp = tempDirs()
const PLAN = ".opencode/prd.json"

/** A repository with one commit and a plan of `stories` (`[id, dependsOn]`). */
function project(stories: Array<[string, string[]]>): { dir: string; plan: PlanState } {
  const dir = tmp("ralph-parallel-")
  git(dir, "init", "-q", "-b", "main")
  writeFileSync(join(dir, "a.txt"), "a\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  mkdirSync(join(dir, ".opencode"))
  const text = JSON.stringify(
    {
      userStories: stories.map(([id, dependsOn]) => ({
        id,
        title: `story ${id}`,
        acceptanceCriteria: [],
        dependsOn,
        passes: false,
      })),
    },
    null,
    2,
  )
  writeFileSync(join(dir, PLAN), text)
  const read = parsePlan(text)
  if (!read.ok) throw new Error(read.problems.join("; "))
  return { dir, plan: { file: PLAN, shape: read.plan.shape, stories: read.plan.stories, done: [] } }
}

function deferred<T = void>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * One instance of the plugin in `dir` (a restart of OpenCode is a new one): its parallel run, and
 * an OpenCode that creates sessions and runs each worktree's /ralph as `command` says.
 */
function instance(
  dir: string,
  opts: {
    maxParallelLoops?: number
    command?: (path: string) => Promise<void>
    createSession?: (path: string) => Promise<void>
  } = {},
) {
  const sessions: string[] = []
  const toasts: string[] = []
  const waiters: Array<{ until: () => boolean; resolve: () => void }> = []
  const heard = () => {
    for (const w of waiters.splice(0))
      if (w.until()) w.resolve()
      else waiters.push(w)
  }
  const logs: string[] = []
  const api = {
    log: (level: string, message: string) => logs.push(`${level}: ${message}`),
    toast: (_variant: string, title: string, message: string) => {
      toasts.push(`${title}: ${message}`)
      heard()
    },
    createSession: async (_title: string, path?: string) => {
      if (path === undefined) throw new Error("a worktree's session is created in its own directory")
      await opts.createSession?.(path)
      sessions.push(path)
      heard()
      return { id: `ses_${sessions.length}` }
    },
    // A slot's instance ends when the run is over and removes it.
    closeInstance: async () => undefined,
    // By default a worktree's /ralph starts its loop, whose first turn goes on for the whole test.
    runCommand: (path: string) => (opts.command ? opts.command(path) : new Promise<void>(() => undefined)),
  }
  // The run's steps are jobs: production's Interpreter does their effects (git, files, this stub OpenCode).
  const interpreter = new Interpreter({
    directory: dir,
    api: api as never,
    store: undefined as never,
    memory: undefined as never,
    onWake: () => undefined,
  })
  const ctx = {
    directory: dir,
    api,
    settings: { current: { ...DEFAULT_SETTINGS, maxParallelLoops: opts.maxParallelLoops ?? 4 } },
    // Each instance is another: a launch an earlier one began and did not finish was cut off.
    launcher: { pid: process.pid, boot: randomUUID() },
    runner: new LoopRunner(interpreter, undefined as never),
    now: Date.now,
  } as unknown as RalphContext & { parallel: ParallelPlan; worktrees: WorktreeWatch }
  const parallel = new ParallelPlan(() => ctx)
  ctx.parallel = parallel
  // The watch ticks when the test says so.
  const watch = new WorktreeWatch(
    () => ctx,
    () => () => undefined,
  )
  ctx.worktrees = watch
  /** Resolves once `until` holds after something the run did (a session made, a toast). */
  const when = (until: () => boolean) => {
    const { promise, resolve } = deferred()
    if (until()) resolve()
    else waiters.push({ until, resolve })
    return promise
  }
  /** The stories the run holds as running, once every change queued before is done (another start is refused with them). */
  const runningNow = async (plan: PlanState) => {
    const refused = await parallel.start(plan, 1, "ses_main", {})
    return refused.ok ? "a new run started" : refused.error
  }
  return { parallel, sessions, toasts, logs, when, runningNow, watch, launcher: ctx.launcher }
}

const passes = (dir: string) =>
  (
    JSON.parse(readFileSync(join(dir, PLAN), "utf8")) as { userStories: Array<{ id: string; passes: boolean }> }
  ).userStories.map((s) => [s.id, s.passes])
const worktreeDir = (dir: string, name: string) => join(dir, ".opencode/ralph-loop/worktrees", name)
const branches = (dir: string) => git(dir, "branch", "--list", "ralph/*", "--format=%(refname:short)")

describe("a parallel run after a restart of OpenCode", () => {
  it("does not take an earlier run's archive of the same story (merged/story-1) as its story settled", async () => {
    const { dir, plan } = project([
      ["1", []],
      ["2", ["1"]],
    ])
    // An earlier run of the plan merged story 1 and archived its loop's files.
    const archive = join(dir, ".opencode/ralph-loop/merged/story-1")
    const earlier = Date.now() - 3_600_000
    await writeWorktreeState(archive, {
      name: "slot-1",
      branch: "ralph/story-1",
      mainDirectory: dir,
      base: { branch: "main", commit: git(dir, "rev-parse", "HEAD") },
      mergeStrategy: "merge",
      story: "1",
      slot: true,
      createdAt: earlier,
      merge: { result: "merged", detail: "ralph/story-1 merged into main" },
    })
    const store = new LoopStore(archive)
    await store.save(loop({ phase: "stopped", stopReason: "completed", iteration: 3 }), "stopped:completed", earlier)
    await store.flush()

    // This run starts story 1 again (the plan file says it is not done), in a new slot on the branch ralph/story-1.
    const first = instance(dir)
    expect(await first.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["1"] })
    expect(readWorktreeState(worktreeDir(dir, "slot-1"))).toMatchObject({ story: "1", branch: "ralph/story-1" })

    // OpenCode restarts while story 1's loop runs.
    const second = instance(dir)
    await second.parallel.reconcile()
    expect(await second.runningNow(plan)).toContain("is under way (1)")
    expect(passes(dir)).toEqual([
      ["1", false],
      ["2", false],
    ])
    expect(second.sessions).toEqual([])
    expect(second.toasts).toEqual([])

    // Its own story settled in its slot while OpenCode was down: that the next start takes.
    const own = readWorktreeState(worktreeDir(dir, "slot-1"))
    if (!own) throw new Error("slot-1 has no worktree.json")
    expect(own.run).toBe(second.parallel.current()?.id)
    await writeWorktreeState(worktreeDir(dir, "slot-1"), {
      ...own,
      merge: { result: "nothing", detail: "the loop left no change to merge" },
    })
    const mine = new LoopStore(worktreeDir(dir, "slot-1"))
    await mine.save(loop({ phase: "stopped", stopReason: "completed", iteration: 2 }), "stopped:completed", Date.now())
    await mine.flush()
    const third = instance(dir)
    await third.parallel.reconcile()
    expect(await third.runningNow(plan)).toContain("is under way (2)")
    expect(passes(dir)).toEqual([
      ["1", true],
      ["2", false],
    ])
    // Story 2 runs in the same slot, reset for it.
    expect(third.sessions).toEqual([worktreeDir(dir, "slot-1")])
    expect(readWorktreeState(worktreeDir(dir, "slot-1"))).toMatchObject({ story: "2", branch: "ralph/story-2" })
  })
})

describe("a story whose worktree loop does not start", () => {
  it("is that story's failure: it is said failed, its slot is free for the next story, and the run ends (its slot and the stories' empty branches gone) when none is left", async () => {
    const { dir, plan } = project([
      ["A", []],
      ["B", []],
    ])
    // The worktree's /ralph runs and its turn ends, but no loop was saved there (refused, say).
    const run = instance(dir, { maxParallelLoops: 1, command: async () => undefined })
    expect(await run.parallel.start(plan, 2, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    await run.when(() => run.toasts.some((t) => t.startsWith("Ralph · plan stopped")))

    // B took the slot A's failed start left.
    expect(run.sessions).toEqual([worktreeDir(dir, "slot-1"), worktreeDir(dir, "slot-1")])
    const refused = "no loop started in the worktree: its /ralph was refused (the worktree's session says why)"
    expect(run.logs.filter((l) => l === `error: worktree slot-1: ${refused}`)).toHaveLength(2)
    expect(run.toasts.filter((t) => t === `Ralph · worktree slot-1: ${refused}`)).toHaveLength(2)
    expect((await readWorktrees(dir, run.launcher)).filter(isLive)).toEqual([])
    // The run is over: its slot is removed, and no story's branch (each empty) is left behind.
    expect(existsSync(worktreeDir(dir, "slot-1"))).toBe(false)
    expect(run.logs.filter((l) => l.includes("is kept"))).toEqual([])
    expect(branches(dir)).toBe("")
    expect(run.parallel.current()).toBeUndefined()
    expect(run.toasts.at(-1)).toContain(
      "2 of 2 stories of .opencode/prd.json are not done: A: no loop started in the worktree",
    )
    expect(run.toasts.at(-1)).toContain("B: no loop started in the worktree")
    expect(passes(dir)).toEqual([
      ["A", false],
      ["B", false],
    ])
  })

  it("a session that cannot be made in the slot fails the story at once and leaves no slot counted as running", async () => {
    const { dir, plan } = project([
      ["A", []],
      ["B", []],
    ])
    let made = 0
    const run = instance(dir, {
      maxParallelLoops: 1,
      // A's session (the first) is refused; B's, in the same slot, is made.
      createSession: async () => (++made === 1 ? Promise.reject(new Error("session.create: 500")) : undefined),
    })
    expect(await run.parallel.start(plan, 2, "ses_main", {})).toEqual({ ok: true, started: ["B"] })
    const failed = "the loop could not be started in the worktree slot-1: Error: session.create: 500"
    expect(run.parallel.current()?.failed).toEqual([{ story: "A", reason: failed }])
    const live = (await readWorktrees(dir, run.launcher)).filter(isLive)
    expect(live.map((w) => [w.name, w.state?.story, w.state?.merge])).toEqual([["slot-1", "B", undefined]])
    // Said when it happens, not only in the run's last line.
    expect(run.logs).toContain(`warn: story A could not start: ${failed}`)
  })
})

describe("a story whose branch exists already (an earlier run kept it)", () => {
  it("fails to start without retiring the slot it was given: the slot goes on and is removed when the run is over", async () => {
    const { dir, plan } = project([
      ["A", []],
      ["B", []],
    ])
    // An earlier run kept story B's work on its branch.
    git(dir, "branch", "ralph/story-b")
    // A's /ralph is refused (its start fails, its slot is free); B is given that slot next.
    const run = instance(dir, { maxParallelLoops: 1, command: async () => undefined })
    expect(await run.parallel.start(plan, 2, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    await run.when(() => run.toasts.some((t) => t.startsWith("Ralph · plan stopped")))
    expect(run.toasts.at(-1)).toContain("B: the branch ralph/story-b exists already")
    expect(run.logs.filter((l) => l.includes("retired"))).toEqual([])
    expect(existsSync(worktreeDir(dir, "slot-1"))).toBe(false)
    expect(branches(dir)).toBe("ralph/story-b")
  })
})

describe("a story whose start a restart of OpenCode cut off", () => {
  it("is seen failed to start after the restart: it holds no place under maxParallelLoops, is recorded failed, and the next story starts", async () => {
    const { dir, plan } = project([
      ["A", []],
      ["B", []],
    ])
    // Story A's slot is made and its /ralph sent; OpenCode stops before a loop is saved there.
    const first = instance(dir, { maxParallelLoops: 1 })
    expect(await first.parallel.start(plan, 2, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    expect((await readWorktrees(dir, first.launcher)).filter(isLive).map((w) => w.name)).toEqual(["slot-1"])

    const second = instance(dir, { maxParallelLoops: 1 })
    await second.parallel.reconcile()
    const seen = await readWorktrees(dir, second.launcher)
    expect(seen.map((w) => [w.name, stageOf(w)])).toEqual([["slot-1", "unstarted"]])
    expect(seen.filter(isLive)).toEqual([])
    expect(cleanVerdict(seen[0] as WorktreeEntry)).toEqual({ remove: true })

    await second.watch.tick()
    await second.when(() => second.sessions.includes(worktreeDir(dir, "slot-1")))
    const cut = "its start was cut off: OpenCode stopped before the loop started in the worktree"
    // Recorded failed (then B took the slot): the run holds A as failed, and it was said.
    expect(second.logs).toContain(`error: worktree slot-1: ${cut}`)
    expect(second.toasts[0]).toContain("its start was cut off")
    expect(await second.runningNow(plan)).toContain("is under way (B)")
    expect(second.parallel.current()?.failed).toEqual([{ story: "A", reason: cut }])
    expect(readWorktreeState(worktreeDir(dir, "slot-1"))).toMatchObject({ story: "B", branch: "ralph/story-b" })
  })
})

describe("a start of the same story after one that did not finish", () => {
  /** Story A's first start: its slot made, its session refused — recorded failed to start; the run ends. */
  async function failedStart() {
    const { dir, plan } = project([["A", []]])
    const first = instance(dir, { createSession: async () => Promise.reject(new Error("session.create: 500")) })
    expect(await first.parallel.start(plan, 1, "ses_main", {})).toMatchObject({ ok: false })
    expect(first.logs).toContain(
      "error: worktree slot-1: the loop could not be started in the worktree slot-1: Error: session.create: 500",
    )
    return { dir, plan }
  }

  /**
   * A slot made for story `story`'s start just before OpenCode stopped: git's worktree on the story's branch, without
   * worktree.json yet.
   */
  function cutSlot(dir: string, story = "a") {
    mkdirSync(join(dir, ".opencode/ralph-loop/worktrees"), { recursive: true })
    git(dir, "worktree", "add", "-q", "-b", `ralph/story-${story}`, worktreeDir(dir, "slot-1"))
    return worktreeDir(dir, "slot-1")
  }

  it("starts again: the run that failed removed its slot and the story's empty branch", async () => {
    const { dir, plan } = await failedStart()
    expect(existsSync(worktreeDir(dir, "slot-1"))).toBe(false)
    expect(branches(dir)).toBe("")
    const again = instance(dir)
    expect(await again.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    expect(again.sessions).toEqual([worktreeDir(dir, "slot-1")])
    expect(readWorktreeState(worktreeDir(dir, "slot-1"))).toMatchObject({ story: "A", branch: "ralph/story-a" })
    expect(readWorktreeState(worktreeDir(dir, "slot-1"))?.merge).toBeUndefined()
  })

  it.each([
    ["this story", "a"],
    ["another story", "b"],
  ])(
    "takes the place of a slot made for %s just before OpenCode stopped (no worktree.json yet, nothing in it)",
    async (_which, story) => {
      const { dir, plan } = project([
        ["A", []],
        ["B", ["A"]],
      ])
      cutSlot(dir, story)
      const again = instance(dir)
      expect(await again.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
      expect(again.sessions).toEqual([worktreeDir(dir, "slot-1")])
      expect(readWorktreeState(worktreeDir(dir, "slot-1"))).toMatchObject({ story: "A", branch: "ralph/story-a" })
      // The empty branch the cut start made is gone with its folder.
      expect(branches(dir)).toBe("ralph/story-a")
    },
  )

  it("after a restart, a run's story whose slot has no worktree.json yet (made, then OpenCode stopped) starts again in its place", async () => {
    const { dir, plan } = project([["A", []]])
    const first = instance(dir)
    expect(await first.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    // As if OpenCode had stopped between `git worktree add` and worktree.json.
    rmSync(join(worktreeDir(dir, "slot-1"), ".opencode"), { recursive: true })
    const second = instance(dir)
    await second.parallel.reconcile()
    expect(second.sessions).toEqual([worktreeDir(dir, "slot-1")])
    expect(readWorktreeState(worktreeDir(dir, "slot-1"))?.run).toBe(second.parallel.current()?.id)
    expect(await readWorktrees(dir, second.launcher).then((all) => all.map((w) => w.name))).toEqual(["slot-1"])
  })

  it.each([
    [
      "an untracked file",
      (wt: string) => writeFileSync(join(wt, "notes.txt"), "mine\n"),
      "it holds files that are not in its commit",
    ],
    [
      "an ignored file",
      (wt: string) => {
        writeFileSync(join(git(wt, "rev-parse", "--git-common-dir"), "info", "exclude"), "*.log\n")
        writeFileSync(join(wt, "notes.log"), "mine\n")
      },
      "it holds files that are not in its commit",
    ],
    [
      "a commit on its branch",
      (wt: string) => {
        writeFileSync(join(wt, "notes.txt"), "mine\n")
        git(wt, "add", "notes.txt")
        git(wt, "commit", "-q", "-m", "mine")
      },
      "its branch ralph/story-a has commits of its own",
    ],
  ] as const)(
    "never takes a cut start's slot holding %s: it is kept, and the start says why",
    async (_what, put, why) => {
      const { dir, plan } = project([["A", []]])
      const wt = cutSlot(dir)
      put(wt)
      const run = instance(dir)
      const refused = await run.parallel.start(plan, 1, "ses_main", {})
      // The story is passed on to a new slot, where its branch (the cut start's, kept) stops it.
      expect(refused).toMatchObject({
        ok: false,
        error: expect.stringContaining("the branch ralph/story-a exists already"),
      })
      expect(run.logs).toContainEqual(
        expect.stringContaining(
          `warn: story A goes to another slot: the worktree slot-1 exists already, left by a start that did not ` +
            `finish, and is kept: ${why}`,
        ),
      )
      expect(readFileSync(join(wt, existsSync(join(wt, "notes.log")) ? "notes.log" : "notes.txt"), "utf8")).toBe(
        "mine\n",
      )
      expect(git(dir, "branch", "--list", "ralph/story-a")).toContain("ralph/story-a")
      expect(existsSync(worktreeDir(dir, "slot-2"))).toBe(false)
    },
  )
})
