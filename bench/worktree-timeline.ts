// Where a parallel run's time goes (issues 33, 40): each story's steps, read from OpenCode's log of
// the run (its own lines, the plugin's lines, and with RALPH_LOOP_DEBUG=1 the main instance's "step
// <effect>" lines with each worktree step's start and duration) and from the mock model's requests.
// Nothing here is timed by the bench itself: every figure is a difference of two logged moments.
//
// A story is found by its model requests (their text names it) and their session; its worktree by
// that session's creation in OpenCode's log (`created … directory=`), or a plugin line naming the
// story. So it reads a run of one worktree per story (`story-s1`) and a run of slots (`slot-1`,
// each story after the first one moved there by `step slot-reset`) alike.
import { readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import type { MockRequest } from "../test/harness/mock-model.js"
import type { StoryPhases, StoryRun } from "./worktree-limit.js"

export interface LogLine {
  at: number
  message: string
  fields: Record<string, string>
}

/** OpenCode's log lines (`timestamp=… message="…" key=value …`) in the harness's data folder, in order. */
export function readOpencodeLog(root: string): LogLine[] {
  const folder = join(root, "home", ".local", "share", "opencode", "log")
  const lines: LogLine[] = []
  for (const file of readdirSync(folder).filter((f) => f.endsWith(".log"))) {
    for (const text of readFileSync(join(folder, file), "utf8").split("\n")) {
      const fields: Record<string, string> = {}
      for (const [, key, raw] of text.matchAll(/(\w[\w.]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
        if (key && raw !== undefined) fields[key] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw
      }
      const at = Date.parse(fields.timestamp ?? "")
      if (Number.isFinite(at) && fields.message !== undefined) lines.push({ at, message: fields.message, fields })
    }
  }
  return lines.sort((a, b) => a.at - b.at)
}

/** The story a request of the bench's plan is about (`Current story: S3` / `Story S3 of the plan`), if any. */
export function storyOf(r: Pick<MockRequest, "lastUser">): string | undefined {
  if (r.lastUser.startsWith("[ralph-loop control]")) return undefined
  const marker = r.lastUser.match(/Current story: S\d+|Story S\d+ of the plan/)?.[0] ?? ""
  return /\b(S\d+)\b/.exec(marker)?.[1]
}

/** One story's moments (ms after /ralph) and its steps' durations (ms). */
export interface StoryTimeline {
  story: string
  /** The worktree it ran in (its own, or its slot's). */
  worktree: string
  /** Its worktree was made for it (`worktree-launch`), not reset to it (`slot-reset`). */
  launched: boolean
  /** ms after /ralph: its worktree's making (or reset) began, its loop started, its first model request, its last reply's end, its loop's report, its branch merged, the plan marked. */
  at: {
    launch: number
    /** Its worktree made (session and instance there) or reset: the story can begin. */
    ready: number
    loopStarted: number
    firstRequest: number
    lastReply: number
    report: number
    /** The main instance's settle of its branch began (its commit). */
    settle: number
    merged: number
    marked: number
  }
  /** Durations, ms. */
  ms: {
    makeWorktree: number
    sessionAndInstance: number
    slotReset: number
    toLoopStart: number
    toFirstRequest: number
    ownTurns: number
    toReport: number
    toSettle: number
    commit: number
    mergeTree: number
    merge: number
    archive: number
    removal: number
    planWrite: number
  }
  /** A slot's first story: its session asked for (the instance's creation began) → its first model request. */
  instanceStartMs: number
}

export interface RunTimeline {
  stories: StoryTimeline[]
  /** /ralph → the first worktree's making began (the command, reading the plan, the run's record). */
  commandMs: number
}

const MISSING = Number.NaN
const d = (from: number | undefined, to: number | undefined) =>
  from === undefined || to === undefined || !Number.isFinite(from) || !Number.isFinite(to) ? MISSING : to - from

/** Whether a log line is about `names` (its `of`, or any field naming the story, its branch or worktree). */
const about = (l: LogLine, names: ReadonlySet<string>) =>
  (l.fields.of !== undefined && names.has(l.fields.of)) ||
  names.has(l.fields.story ?? "") ||
  names.has(l.fields.branch ?? "") ||
  names.has(basename(l.fields.worktree ?? ""))

/** The timeline of the parallel run from `t0` (/ralph) to `end`, from the log and the model's requests (one run at a time). */
export function runTimeline(
  log: readonly LogLine[],
  requests: readonly MockRequest[],
  t0: number,
  end: number,
  storyIDs: readonly string[],
): RunTimeline {
  const mine = log.filter((l) => l.at >= t0 && l.at <= end + 5_000)
  const steps = (kind: string) =>
    mine
      .filter((l) => l.message === `step ${kind}`)
      .map((l) => ({ line: l, at: Number(l.fields.at), ms: Number(l.fields.ms) }))
  const ownRequests = (story: string) => requests.filter((r) => r.kind === "main" && storyOf(r) === story)
  // OpenCode's own line first (the session's directory is the worktree), then the plugin's lines.
  const worktreeOf = (story: string, session: string | undefined) => {
    const created = mine.find((l) => l.message === "created" && l.fields.id === session && l.fields.directory)
    if (created) return basename(created.fields.directory ?? "")
    const named = mine.find(
      (l) => l.fields.story?.toLowerCase() === story.toLowerCase() && (l.fields.worktree || l.fields.of),
    )
    if (named) return basename(named.fields.worktree ?? named.fields.of ?? "")
    const started = mine.find((l) => l.message === "worktree loop started" && l.fields.session === session)
    return started ? basename(started.fields.worktree ?? "") : `story-${story.toLowerCase()}`
  }
  const base = storyIDs.map((story) => {
    const own = ownRequests(story)
    const session = own.find((r) => r.session)?.session
    const firstRequest = own.length ? Math.min(...own.map((r) => r.at)) : MISSING
    const lastReply = own.length ? Math.max(...own.map((r) => r.endedAt ?? r.at)) : MISSING
    return { story, session, worktree: worktreeOf(story, session), firstRequest, lastReply }
  })
  const usedLaunch = new Set<LogLine>()
  const usedReset = new Set<LogLine>()
  const order = (ms: number) => (Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY)
  const stories = [...base]
    .sort((a, b) => order(a.firstRequest) - order(b.firstRequest))
    .map((s): StoryTimeline => {
      const names = new Set([
        s.worktree,
        `story-${s.story.toLowerCase()}`,
        `ralph/story-${s.story.toLowerCase()}`,
        s.story,
      ])
      const before = Number.isFinite(s.firstRequest) ? s.firstRequest : end
      const after = Number.isFinite(s.lastReply) ? s.lastReply : t0
      // The worktree made for it, or else the reset of its slot to it (the last one before its first request).
      const launch = steps("worktree-launch").find(
        (x) => !usedLaunch.has(x.line) && about(x.line, names) && x.at <= before,
      )
      const reset = launch
        ? undefined
        : steps("slot-reset")
            .filter((x) => !usedReset.has(x.line) && about(x.line, names) && x.at <= before)
            .at(-1)
      if (launch) usedLaunch.add(launch.line)
      if (reset) usedReset.add(reset.line)
      const begun = launch ?? reset
      const ready = begun ? begun.at + begun.ms : undefined
      const creating = launch
        ? mine.find(
            (l) =>
              l.message === "creating instance" &&
              basename(l.fields.directory ?? "") === s.worktree &&
              l.at >= launch.at,
          )
        : undefined
      const loopStarted = mine.find((l) => l.message === "loop started" && l.fields.session === s.session)?.at
      const report = mine.find((l) => l.message === "loop HTML report written" && l.fields.loop === s.session)?.at
      const settle = (kind: string) => steps(kind).find((x) => about(x.line, names) && x.at >= after)
      const commit = settle("worktree-commit")
      const merged = mine.find((l) => l.at >= after && [...names].some((n) => l.message === `worktree ${n}: merged`))
      // The plan is marked after the merge (or, no merge line found, after the settle's commit).
      const settled = merged?.at ?? (commit ? commit.at + commit.ms : undefined)
      const mark =
        settled === undefined ? undefined : mine.find((l) => l.message === "step parallel-mark" && l.at >= settled)
      const markAt = mark ? Number(mark.fields.at) : undefined
      const rel = (at: number | undefined) => (at === undefined ? MISSING : at - t0)
      return {
        story: s.story,
        worktree: s.worktree,
        launched: launch !== undefined,
        at: {
          launch: rel(begun?.at),
          ready: rel(ready),
          loopStarted: rel(loopStarted),
          firstRequest: rel(s.firstRequest),
          lastReply: rel(s.lastReply),
          report: rel(report),
          settle: rel(commit?.at),
          merged: rel(merged?.at),
          marked: rel(markAt !== undefined && mark ? markAt + Number(mark.fields.ms) : undefined),
        },
        ms: {
          makeWorktree: d(launch?.at, creating?.at),
          sessionAndInstance: d(creating?.at, ready && launch ? ready : undefined),
          slotReset: reset?.ms ?? MISSING,
          toLoopStart: d(ready, loopStarted),
          toFirstRequest: d(loopStarted, s.firstRequest),
          ownTurns: d(s.firstRequest, s.lastReply),
          toReport: d(s.lastReply, report),
          toSettle: d(report, commit?.at),
          commit: commit?.ms ?? MISSING,
          mergeTree: settle("worktree-merge-facts")?.ms ?? MISSING,
          merge: settle("worktree-merge")?.ms ?? MISSING,
          archive: settle("worktree-archive")?.ms ?? MISSING,
          removal: settle("worktree-remove")?.ms ?? MISSING,
          planWrite: mark ? Number(mark.fields.ms) : MISSING,
        },
        instanceStartMs: d(creating?.at ?? launch?.at, launch ? s.firstRequest : undefined),
      }
    })
  const launches = stories.map((s) => s.at.launch).filter(Number.isFinite)
  return {
    stories: storyIDs.map((id) => stories.find((s) => s.story === id) as StoryTimeline),
    commandMs: launches.length ? Math.min(...launches) : MISSING,
  }
}

/** The timeline's stories as the limit and the split read them. */
export function storyRuns(t: RunTimeline): StoryRun[] {
  return t.stories.map((s) => ({
    story: s.story,
    worktree: s.worktree,
    start: s.at.launch,
    end: [s.at.marked, s.at.merged, s.at.lastReply].find(Number.isFinite) ?? Number.NaN,
  }))
}

/** Each story's phases (ms): worktree add, instance start, slot reset, first request, model time, report, merge. */
export function storyPhases(t: RunTimeline): StoryPhases[] {
  return t.stories.map((s) => ({
    story: s.story,
    worktreeAdd: s.ms.makeWorktree,
    instanceStart: s.ms.sessionAndInstance,
    slotReset: s.ms.slotReset,
    firstRequest: d(s.at.ready, s.at.firstRequest),
    modelTime: s.ms.ownTurns,
    reportAndWait: d(s.at.lastReply, s.at.settle),
    merge: d(s.at.settle, s.at.marked),
  }))
}
