// Files a restart leaves behind for a session: <summaryPath>/<sessionID>/ralph_summary.md and,
// for `recreate`, transcript.json (the full message list of the session before it is deleted).
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { maxIterations, type Loop } from "../loop/loop.js"
import type { MessageWithParts } from "../loop/read-turn.js"
import { SESSION_ID } from "../host/session-id.js"
import { isInside } from "../project/inside.js"
import { writeFileAtomic } from "../files/atomic.js"

/** The folder for one session's files; refuses ids or paths that would leave the project. */
export function sessionDir(directory: string, summaryPath: string, sessionID: string): string {
  if (!SESSION_ID.test(sessionID))
    throw new Error(`refusing unsafe session id for a file name: ${JSON.stringify(sessionID)}`)
  const dir = resolve(directory, summaryPath, sessionID)
  if (!isInside(directory, dir)) throw new Error(`summary folder ${dir} is outside the project ${directory}`)
  return dir
}

export interface SummaryRecord {
  loop: Loop
  /** The session that was summarized (the one being left). */
  sessionID: string
  /** The iteration the new session starts. */
  nextIteration: number
  summary: string
  /** Where the summary came from. */
  source: "model" | "fallback"
  at: Date
}

function renderSummary(record: SummaryRecord): string {
  const { loop } = record
  return [
    "# Ralph summary",
    "",
    `- Task: ${loop.task.split("\n")[0]}`,
    `- Session: ${record.sessionID}`,
    `- Iteration: ${record.nextIteration - 1} of ${maxIterations(loop)} ended; iteration ${record.nextIteration} ` +
      `starts in a fresh session`,
    `- Strategy: ${loop.settings.strategy}`,
    `- Written: ${record.at.toISOString()}`,
    record.source === "model"
      ? "- Summary by: the model (session.summarize)"
      : "- Summary by: ralph-loop (the model's summary was not available)",
    "",
    "## Task",
    "",
    loop.task,
    "",
    "## Summary",
    "",
    record.summary.trim(),
    "",
  ].join("\n")
}

export async function writeSummary(directory: string, record: SummaryRecord): Promise<string> {
  const file = join(sessionDir(directory, record.loop.settings.summaryPath, record.sessionID), "ralph_summary.md")
  await writeFileAtomic(file, renderSummary(record), directory)
  await ignoreInGit(directory, record.loop.settings.summaryPath)
  return file
}

/**
 * Summaries and transcripts are kept out of git: transcripts hold whole conversations (secrets
 * included), and `git clean -fd` must not delete the only copy of a deleted session.
 */
async function ignoreInGit(directory: string, summaryPath: string): Promise<void> {
  const file = join(resolve(directory, summaryPath), ".gitignore")
  if (!existsSync(file)) await writeFileAtomic(file, "*\n", directory).catch(() => undefined)
}

export async function writeTranscript(
  directory: string,
  summaryPath: string,
  sessionID: string,
  messages: readonly MessageWithParts[],
): Promise<string> {
  const file = join(sessionDir(directory, summaryPath, sessionID), "transcript.json")
  await writeFileAtomic(
    file,
    `${JSON.stringify({ sessionID, archivedAt: new Date().toISOString(), messages }, null, 2)}\n`,
    directory,
  )
  return file
}

/** The summary part of a ralph_summary.md written earlier (for a prompt that must be sent again). */
export async function readSummaryFile(
  directory: string,
  summaryPath: string,
  sessionID: string,
): Promise<string | undefined> {
  const text = await readFile(join(sessionDir(directory, summaryPath, sessionID), "ralph_summary.md"), "utf8").catch(
    () => undefined,
  )
  return text?.split("\n## Summary\n").slice(1).join("\n## Summary\n").trim()
}
