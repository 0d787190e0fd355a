// Where a parallel run's time goes (issue 33): each story's steps, read from OpenCode's log of the
// run (its own lines, the plugin's lines, and with RALPH_LOOP_DEBUG=1 the main instance's "step
// <effect>" lines with each worktree step's start and duration) and from the mock model's requests.
// Nothing here is timed by the bench itself: every figure is a difference of two logged moments.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { MockRequest } from "../test/harness/mock-model.js"

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

/** One story's moments (ms after /ralph) and its steps' durations (ms). */
export interface StoryTimeline {
  story: string
  /** ms after /ralph: the worktree's making began, the story's loop started in its instance, its first model request, its last reply's end, its loop's report, its branch merged, the plan marked. */
  at: {
    launch: number
    loopStarted: number
    firstRequest: number
    lastReply: number
    report: number
    merged: number
    marked: number
  }
  /** Durations, ms. */
  ms: {
    makeWorktree: number
    sessionAndInstance: number
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
}

export interface RunTimeline {
  stories: StoryTimeline[]
  /** /ralph → the first worktree's making began (the command, reading the plan, the run's record). */
  commandMs: number
}

/** The timeline of the parallel run from `t0` (/ralph) to `end`, from the log and the model's requests (one run at a time). */
export function runTimeline(
  log: readonly LogLine[],
  requests: readonly MockRequest[],
  t0: number,
  end: number,
  storyIDs: readonly string[],
): RunTimeline {
  const mine = log.filter((l) => l.at >= t0 && l.at <= end + 5_000)
  const step = (kind: string, of: string) => {
    const line = mine.find((l) => l.message === `step ${kind}` && l.fields.of === of)
    return line ? { at: Number(line.fields.at), ms: Number(line.fields.ms) } : undefined
  }
  const rel = (at: number | undefined) => (at === undefined ? Number.NaN : at - t0)
  const stories = storyIDs.map((story): StoryTimeline => {
    const name = `story-${story.toLowerCase()}`
    const launch = step("worktree-launch", name)
    const creating = mine.find((l) => l.message === "creating instance" && l.fields.directory?.endsWith(`/${name}`))
    const started = mine.find((l) => l.message === "worktree loop started" && l.fields.worktree?.endsWith(`/${name}`))
    const session = started?.fields.session
    const loopStarted = mine.find((l) => l.message === "loop started" && l.fields.session === session)
    const own = requests.filter((r) => r.session === session && r.kind === "main")
    const firstRequest = own.length ? Math.min(...own.map((r) => r.at)) : undefined
    const lastReply = own.length ? Math.max(...own.map((r) => r.endedAt ?? r.at)) : undefined
    const report = mine.find((l) => l.message === "loop HTML report written" && l.fields.loop === session)
    const commit = step("worktree-commit", name)
    const facts = step("worktree-merge-facts", name)
    const merge = step("worktree-merge", name)
    const archive = step("worktree-archive", name)
    const remove = step("worktree-remove", name)
    const merged = mine.find((l) => l.message === `worktree ${name}: merged`)
    const mark = merged ? mine.find((l) => l.message === "step parallel-mark" && l.at >= merged.at) : undefined
    const markAt = mark ? Number(mark.fields.at) : undefined
    const d = (from: number | undefined, to: number | undefined) =>
      from === undefined || to === undefined ? Number.NaN : to - from
    return {
      story,
      at: {
        launch: rel(launch?.at),
        loopStarted: rel(loopStarted?.at),
        firstRequest: rel(firstRequest),
        lastReply: rel(lastReply),
        report: rel(report?.at),
        merged: rel(merged?.at),
        marked: rel(markAt !== undefined && mark ? markAt + Number(mark.fields.ms) : undefined),
      },
      ms: {
        makeWorktree: d(launch?.at, creating?.at),
        sessionAndInstance: d(creating?.at, launch ? launch.at + launch.ms : undefined),
        toLoopStart: d(launch ? launch.at + launch.ms : undefined, loopStarted?.at),
        toFirstRequest: d(loopStarted?.at, firstRequest),
        ownTurns: d(firstRequest, lastReply),
        toReport: d(lastReply, report?.at),
        toSettle: d(report?.at, commit?.at),
        commit: commit?.ms ?? Number.NaN,
        mergeTree: facts?.ms ?? Number.NaN,
        merge: merge?.ms ?? Number.NaN,
        archive: archive?.ms ?? Number.NaN,
        removal: remove?.ms ?? Number.NaN,
        planWrite: mark ? Number(mark.fields.ms) : Number.NaN,
      },
    }
  })
  const firstLaunch = Math.min(...stories.map((s) => s.at.launch))
  return { stories, commandMs: firstLaunch }
}
