// /ralph-status: the loop of this session — live, or how it ended (a stopped loop is only on disk,
// so this also works after OpenCode restarted) — and the project's loops, one line each.
import { existsSync } from "node:fs"
import { relative } from "node:path"
import type { RalphContext } from "../engine/context.js"
import type { Loop } from "../loop/loop.js"
import { reportFile } from "../store/report.js"
import { listCheckpoints } from "../checkpoints/checkpoint-git.js"
import { checkpointsLine } from "../checkpoints/checkpoints.js"
import { continuationStatus } from "./continuation-status.js"
import { planAtRest } from "./plan-status.js"
import { endedText, loopLines, statusText } from "./status-text.js"
import { struggle } from "../status/struggle.js"
import { readWorktrees } from "../worktrees/worktree-loops.js"
import { parallelLines, worktreeLines } from "../worktrees/status-lines.js"

/** State files read to find this session's ended loop (the newest ones), and loops listed. */
const FILES_READ = 30
const LOOPS_LISTED = 10

/** What /ralph-status answers where no loop is to be told of. */
export const NO_LOOP = {
  title: "Ralph · no loop here",
  message: "There is no Ralph loop in this session. Start one with /ralph <task>.",
}

/**
 * /ralph-status's answer, the one text of it: the chat command's message and the TUI's dialog (asked
 * through the control channel). `sessionID` undefined: asked outside any session (the TUI's home),
 * where no session's continuations are to be told of.
 */
export async function statusAnswer(
  ctx: RalphContext,
  sessionID: string | undefined,
): Promise<{ title: string; message: string; variant?: "info" }> {
  const message = await statusMessage(ctx, sessionID ?? "")
  const result = message ? { title: "Ralph · status", message } : NO_LOOP
  // Without a live loop here, the continuations outside /ralph say what they would do.
  if (sessionID === undefined || ctx.manager.find(sessionID)) return result
  return { ...result, message: `${result.message}\n\n${continuationStatus(ctx, sessionID)}` }
}

/**
 * The status text for `sessionID`, with the project's worktree loops; undefined when the project has no loop at all.
 */
async function statusMessage(ctx: RalphContext, sessionID: string): Promise<string | undefined> {
  const own = await sessionStatus(ctx, sessionID)
  const worktrees = ctx.worktree()
    ? []
    : [
        ...worktreeLines(
          (await readWorktrees(ctx.directory, ctx.launcher)).map((w) => ({
            name: w.name,
            state: w.state,
            loop: w.saved?.loop,
          })),
        ),
        ...parallelLines(ctx.parallel.current()),
      ]
  if (worktrees.length === 0) return own
  return [own ?? "No Ralph loop in this session.", "", ...worktrees].join("\n")
}

async function sessionStatus(ctx: RalphContext, sessionID: string): Promise<string | undefined> {
  const live = ctx.manager.find(sessionID)
  if (live)
    return withCheckpoints(
      ctx,
      live,
      statusText(live, ctx.now(), struggle(await ctx.loopHistory(live), live.stopReason)),
    )
  const saved = await ctx.savedLoops(FILES_READ)
  const lines = loopLines(ctx.manager.all(), saved, LOOPS_LISTED, ctx.now())
  const list = lines.length
    ? [`Loops in this project (live first, then the newest; at most ${LOOPS_LISTED}):`, ...lines]
    : []
  const ended = saved.find(
    ({ loop }) => loop.phase === "stopped" && (loop.sessionID === sessionID || loop.lineage.includes(sessionID)),
  )
  if (ended)
    return [
      await withCheckpoints(
        ctx,
        ended.loop,
        endedText(
          ended,
          writtenReport(ctx.directory, ended.loop),
          ctx.now(),
          struggle(await ctx.loopHistory(ended.loop), ended.loop.stopReason),
        ),
      ),
      "",
      ...list,
    ].join("\n")
  const plan = planAtRest(ctx)
  if (lines.length === 0 && plan.length === 0) return undefined
  return ["No Ralph loop in this session.", ...list, ...(plan.length ? ["", ...plan] : [])].join("\n")
}

/** The loop of `sessionID` that ended, from its state file (for commands that also act on an ended loop). */
export async function endedLoop(ctx: RalphContext, sessionID: string): Promise<Loop | undefined> {
  const saved = await ctx.savedLoops(FILES_READ)
  return saved.find(
    ({ loop }) => loop.phase === "stopped" && (loop.sessionID === sessionID || loop.lineage.includes(sessionID)),
  )?.loop
}

async function withCheckpoints(ctx: RalphContext, loop: Loop, text: string): Promise<string> {
  // A listing git fails is said, never shown as no checkpoints.
  const line = await listCheckpoints(ctx.directory, loop.id).then(
    (checkpoints) => checkpointsLine(loop.id, checkpoints),
    (error: unknown) => `Checkpoints: ${error instanceof Error ? error.message : String(error)}`,
  )
  return line ? `${text}\n${line}` : text
}

/** The loop's ralph_report.md relative to the project, once it is written. */
function writtenReport(directory: string, loop: Loop): string | undefined {
  try {
    const file = reportFile(directory, loop)
    return existsSync(file) ? relative(directory, file) : undefined
  } catch {
    return undefined
  }
}
