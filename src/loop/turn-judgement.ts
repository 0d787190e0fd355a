// What one turn shows, before the loop decides on it (decide.ts): its status block, whether it claims
// the task is done and the checks accept the claim, the progress measured, the check history with this
// turn's run, and the feedback the next prompt carries.
import { judgeClaim, todosFeedback } from "./claim.js"
import { keptPromise } from "./completion.js"
import { failureReport, feedbackLine } from "./criteria.js"
import { issueCount, keepHistory, type DiagnosticSnapshot } from "../checks/diagnostics.js"
import { gateOpen, indicatesCompletion } from "./exit-gate.js"
import { learnGotchas } from "./gotchas.js"
import { maxIterations, type Loop } from "./loop.js"
import { measureProgress, type ProgressSample } from "./progress.js"
import { parseStatusBlock } from "./status-block.js"
import type { Turn } from "./turn.js"
import { guardMode } from "../config/guard-setting.js"
import type { Weakened } from "../evidence/record.js"
import { refusalFeedback, refusingFindings } from "../evidence/refusal.js"
import type { Replay } from "../evidence/replay-record.js"
import { judgeReplay, type ReplayJudgement } from "./replay-judgement.js"
import { outsideReplay } from "../evidence/replay-record.js"

/** The promise (or a completion marker) in the model's own text, or a call of the ralph_done tool: the same claim. */
export const promisedIn = (loop: Loop, turn: Turn): boolean =>
  turn.doneCall !== undefined || keptPromise(turn.texts, loop.settings.promiseWord, loop.settings.completionMarkers)

export interface TurnJudgement {
  status: ReturnType<typeof parseStatusBlock>
  promised: boolean
  completionStreak: number
  /** The check history with this turn's run. */
  snapshots: Loop["snapshots"]
  gotchas: Loop["gotchas"]
  /** The turn claims the task is done (by the exit gate). */
  claimed: boolean
  measured: ReturnType<typeof measureProgress>
  /** The criteria the checks do not meet. */
  unmet: string[]
  openTodos: readonly string[]
  /** The guard's findings that refuse a claim (issue 39): changes that weaken the checks. */
  refusing: ReturnType<typeof refusingFindings>
  /** What the replay of the start's tests says of the claim (issue 46). */
  replay: ReplayJudgement
  /** Claimed, and the checks, the todos and the guard accept the claim. */
  accepted: boolean
}

export function judgeTurn(
  loop: Loop,
  turn: Turn,
  sample: ProgressSample,
  snapshot: DiagnosticSnapshot | undefined,
  weakened: readonly Weakened[] | undefined,
  replayed?: Replay,
): TurnJudgement {
  const { settings } = loop
  const text = turn.texts.join("\n")
  const status = settings.statusBlock ? parseStatusBlock(text) : undefined
  const promised = promisedIn(loop, turn)
  const completionStreak = indicatesCompletion(promised, status) ? loop.completionStreak + 1 : 0
  const snapshots = snapshot ? keepHistory([...loop.snapshots, snapshot]) : loop.snapshots
  const gotchas = snapshot ? learnGotchas(loop.gotchas, snapshot) : loop.gotchas
  const claimed = gateOpen({ gate: settings.exitGate, promised, status, completionStreak })
  const previous = loop.snapshots.at(-1)
  const improved = snapshot !== undefined && previous !== undefined && issueCount(snapshot) < issueCount(previous)
  const measured = measureProgress(loop.progress, sample, turn.texts, improved)
  // Open todos veto a completion claim, as a failing check does.
  const { unmet, openTodos, accepted: passes } = judgeClaim(snapshot, claimed ? sample.openTodos : [], settings)
  // The guard (issue 39): changes that weaken the checks refuse a claim as a failing check does — unless the
  // replay (issue 46) proves it: then the start's tests passed on the end's code, and the findings are words.
  const mode = guardMode(settings.guard)
  const replay = judgeReplay(loop, mode === "off" ? undefined : replayed, refusingFindings(mode, weakened))
  const refusing = replay.proves
    ? refusingFindings(mode, weakened).filter(outsideReplay)
    : refusingFindings(mode, weakened)
  const replayRefuses = mode === "refuse" && replay.refused.length > 0
  const accepted = claimed && passes && refusing.length === 0 && !replayRefuses
  return {
    status,
    promised,
    completionStreak,
    snapshots,
    gotchas,
    claimed,
    measured,
    unmet,
    openTodos,
    refusing,
    replay,
    accepted,
  }
}

/**
 * What the next prompt says of the turn: the guard's refusal, the open todos, then what the checks
 * report (and a circular fix).
 */
export function feedbackOf(
  loop: Loop,
  judged: TurnJudgement,
  snapshot: DiagnosticSnapshot | undefined,
  circular: readonly string[],
): string | undefined {
  const { unmet, snapshots, claimed } = judged
  const ask = claimed
    ? "the completion claim was rejected — fix what the checks report, then claim again"
    : "fix what the checks report"
  const back = "Circular fix: these failures were fixed before and are back — do not undo the earlier fix again"
  const circularLines = circular.length ? ["", `${back}: ${circular.join("; ")}`] : []
  const checksFeedback =
    snapshot && unmet.length > 0
      ? [
          feedbackLine(loop.iteration + 1, maxIterations(loop), unmet, snapshots, ask),
          ...circularLines,
          "",
          failureReport(snapshot),
        ]
      : []
  const todos = todosFeedback(judged.openTodos)
  const parts = [judged.replay.refused, refusalFeedback(judged.refusing), todos, checksFeedback].filter(
    (p) => p.length > 0,
  )
  if (parts.length === 0) return undefined
  return parts.flatMap((p, i) => (i > 0 ? ["", ...p] : p)).join("\n")
}
