// A parallel plan run on real folders and a real git repository, with OpenCode replaced by a stub
// that records what the run asks of it: what a run takes as its own after a restart, and what
// happens to a story whose worktree loop does not start.
import { execFileSync } from "node:child_process"
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

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  }).trim()
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
    createSessionIn: async (path: string) => {
      await opts.createSession?.(path)
      sessions.push(path)
      heard()
      return { id: `ses_${sessions.length}` }
    },
    // By default a worktree's /ralph starts its loop, whose first turn goes on for the whole test.
    command: (path: string) => (opts.command ? opts.command(path) : new Promise<void>(() => undefined)),
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

describe("a parallel run after a restart of OpenCode", () => {
  it("does not take an earlier run's archive of the same worktree name (merged/story-1) as its story settled", async () => {
    const { dir, plan } = project([
      ["1", []],
      ["2", ["1"]],
    ])
    // An earlier run of the plan merged story 1 and archived its loop's files.
    const archive = join(dir, ".opencode/ralph-loop/merged/story-1")
    const earlier = Date.now() - 3_600_000
    await writeWorktreeState(archive, {
      name: "story-1",
      branch: "ralph/story-1",
      mainDirectory: dir,
      base: { branch: "main", commit: git(dir, "rev-parse", "HEAD") },
      mergeStrategy: "merge",
      story: "1",
      createdAt: earlier,
      merge: { result: "merged", detail: "ralph/story-1 merged into main; the worktree is removed", removed: true },
    })
    const store = new LoopStore(archive)
    await store.save(loop({ phase: "stopped", stopReason: "completed", iteration: 3 }), "stopped:completed", earlier)
    await store.flush()

    // This run starts story 1 again (the plan file says it is not done), in a new worktree story-1.
    const first = instance(dir)
    expect(await first.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["1"] })
    expect(existsSync(worktreeDir(dir, "story-1"))).toBe(true)

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

    // Its own worktree settled while OpenCode was down (kept, here: written in the worktree): that the next start takes.
    const own = readWorktreeState(worktreeDir(dir, "story-1"))
    if (!own) throw new Error("story-1 has no worktree.json")
    expect(own.run).toBe(second.parallel.current()?.id)
    await writeWorktreeState(worktreeDir(dir, "story-1"), {
      ...own,
      merge: { result: "nothing", detail: "the loop left no change to merge" },
    })
    const mine = new LoopStore(worktreeDir(dir, "story-1"))
    await mine.save(loop({ phase: "stopped", stopReason: "completed", iteration: 2 }), "stopped:completed", Date.now())
    await mine.flush()
    const third = instance(dir)
    await third.parallel.reconcile()
    expect(await third.runningNow(plan)).toContain("is under way (2)")
    expect(passes(dir)).toEqual([
      ["1", true],
      ["2", false],
    ])
    expect(third.sessions).toEqual([worktreeDir(dir, "story-2")])
  })
})

describe("a story whose worktree loop does not start", () => {
  it("is that story's failure: the worktree is recorded failed, its place is free for the next story, and the run ends when none is left", async () => {
    const { dir, plan } = project([
      ["A", []],
      ["B", []],
    ])
    // The worktree's /ralph runs and its turn ends, but no loop was saved there (refused, say).
    const run = instance(dir, { maxParallelLoops: 1, command: async () => undefined })
    expect(await run.parallel.start(plan, 2, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    await run.when(() => run.toasts.some((t) => t.startsWith("Ralph · plan stopped")))

    expect(run.sessions).toEqual([worktreeDir(dir, "story-a"), worktreeDir(dir, "story-b")])
    for (const name of ["story-a", "story-b"])
      expect(readWorktreeState(worktreeDir(dir, name))?.merge).toEqual({
        result: "failed",
        detail: "no loop started in the worktree: its /ralph was refused (the worktree's session says why)",
      })
    expect((await readWorktrees(dir, run.launcher)).filter(isLive)).toEqual([])
    expect(run.parallel.current()).toBeUndefined()
    expect(run.toasts.at(-1)).toContain(
      "2 of 2 stories of .opencode/prd.json are not done: A: no loop started in the worktree",
    )
    expect(passes(dir)).toEqual([
      ["A", false],
      ["B", false],
    ])
  })

  it("a session that cannot be made in the worktree fails the story at once and leaves no worktree counted as running", async () => {
    const { dir, plan } = project([
      ["A", []],
      ["B", []],
    ])
    const run = instance(dir, {
      maxParallelLoops: 1,
      createSession: async (path) =>
        path.endsWith("story-a") ? Promise.reject(new Error("session.create: 500")) : undefined,
    })
    expect(await run.parallel.start(plan, 2, "ses_main", {})).toEqual({ ok: true, started: ["B"] })
    expect(readWorktreeState(worktreeDir(dir, "story-a"))?.merge).toEqual({
      result: "failed",
      detail: "the loop could not be started in the worktree story-a: Error: session.create: 500",
    })
    expect((await readWorktrees(dir, run.launcher)).filter(isLive).map((w) => w.name)).toEqual(["story-b"])
    // Said when it happens, not only in the run's last line.
    expect(run.logs).toContain(
      "warn: story A could not start: the loop could not be started in the worktree story-a: Error: session.create: 500",
    )
  })
})

describe("a story whose start a restart of OpenCode cut off", () => {
  it("is seen failed to start after the restart: it holds no place under maxParallelLoops, is recorded failed, and the next story starts", async () => {
    const { dir, plan } = project([
      ["A", []],
      ["B", []],
    ])
    // Story A's worktree is made and its /ralph sent; OpenCode stops before a loop is saved there.
    const first = instance(dir, { maxParallelLoops: 1 })
    expect(await first.parallel.start(plan, 2, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    expect((await readWorktrees(dir, first.launcher)).filter(isLive).map((w) => w.name)).toEqual(["story-a"])

    const second = instance(dir, { maxParallelLoops: 1 })
    await second.parallel.reconcile()
    const seen = await readWorktrees(dir, second.launcher)
    expect(seen.map((w) => [w.name, stageOf(w)])).toEqual([["story-a", "unstarted"]])
    expect(seen.filter(isLive)).toEqual([])
    expect(cleanVerdict(seen[0] as WorktreeEntry)).toEqual({ remove: true })

    await second.watch.tick()
    await second.when(() => second.sessions.includes(worktreeDir(dir, "story-b")))
    expect(readWorktreeState(worktreeDir(dir, "story-a"))?.merge).toEqual({
      result: "failed",
      detail: "its start was cut off: OpenCode stopped before the loop started in the worktree",
    })
    expect(second.toasts[0]).toContain("its start was cut off")
    expect(await second.runningNow(plan)).toContain("is under way (B)")
  })
})

describe("a start of the same story after one that did not finish", () => {
  /** Story A's first start: its worktree made, its session refused — recorded failed to start. */
  async function failedStart() {
    const { dir, plan } = project([["A", []]])
    const first = instance(dir, { createSession: async () => Promise.reject(new Error("session.create: 500")) })
    expect(await first.parallel.start(plan, 1, "ses_main", {})).toMatchObject({ ok: false })
    expect(readWorktreeState(worktreeDir(dir, "story-a"))?.merge?.result).toBe("failed")
    return { dir, plan }
  }

  it("takes the place of the worktree that start left (recorded failed, nothing in it)", async () => {
    const { dir, plan } = await failedStart()
    const again = instance(dir)
    expect(await again.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    expect(again.sessions).toEqual([worktreeDir(dir, "story-a")])
    expect(readWorktreeState(worktreeDir(dir, "story-a"))?.merge).toBeUndefined()
  })

  it("takes the place of a worktree made just before OpenCode stopped (no worktree.json yet, nothing in it)", async () => {
    const { dir, plan } = project([["A", []]])
    mkdirSync(join(dir, ".opencode/ralph-loop/worktrees"), { recursive: true })
    git(dir, "worktree", "add", "-q", "-b", "ralph/story-a", worktreeDir(dir, "story-a"))
    const again = instance(dir)
    expect(await again.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    expect(readWorktreeState(worktreeDir(dir, "story-a"))?.story).toBe("A")
  })

  it("after a restart, a run's story whose worktree has no worktree.json yet (made, then OpenCode stopped) starts again in its place", async () => {
    const { dir, plan } = project([["A", []]])
    const first = instance(dir)
    expect(await first.parallel.start(plan, 1, "ses_main", {})).toEqual({ ok: true, started: ["A"] })
    // As if OpenCode had stopped between `git worktree add` and worktree.json.
    rmSync(join(worktreeDir(dir, "story-a"), ".opencode"), { recursive: true })
    const second = instance(dir)
    await second.parallel.reconcile()
    expect(second.sessions).toEqual([worktreeDir(dir, "story-a")])
    expect(readWorktreeState(worktreeDir(dir, "story-a"))?.run).toBe(second.parallel.current()?.id)
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
  ] as const)("never takes one holding %s: it is kept, and the start says why", async (_what, put, why) => {
    const { dir, plan } = await failedStart()
    const wt = worktreeDir(dir, "story-a")
    put(wt)
    const refused = await instance(dir).parallel.start(plan, 1, "ses_main", {})
    expect(refused).toMatchObject({
      ok: false,
      error: expect.stringContaining(
        `the worktree story-a exists already, left by a start that did not finish, and is kept: ${why}`,
      ),
    })
    expect(readFileSync(join(wt, existsSync(join(wt, "notes.log")) ? "notes.log" : "notes.txt"), "utf8")).toBe("mine\n")
    expect(git(dir, "branch", "--list", "ralph/story-a")).toContain("ralph/story-a")
  })
})
