// Consolidation: when a loop ends, for any reason, <summaryPath>/<loopID>/ralph_report.md says what
// happened — iterations, how it ended, checks over time, files it changed (not the user's own
// changes from before it began), tokens and cost.
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { issueCount } from "../checks/diagnostics.js"
import { maxIterations, totalUsage, type Loop } from "../loop/loop.js"
import { writeFileAtomic } from "../files/atomic.js"
import { sessionDir } from "./session-files.js"
import { planReportLines } from "../plan/status.js"
import { checkpointsLine, type Checkpoint } from "../checkpoints/checkpoints.js"
import { reportEvidenceLines } from "../evidence/guard-summary.js"

export function renderReport(
  loop: Loop,
  files: Array<{ code: string; path: string }>,
  now: number,
  checkpoints: readonly Checkpoint[] = [],
): string {
  const usage = totalUsage(loop)
  const minutes = ((now - loop.startedAt) / 60_000).toFixed(1)
  const checks = loop.snapshots.length
    ? [
        "| iteration | errors | warnings | security | tests failed / run | issues | checks |",
        "|---|---|---|---|---|---|---|",
        ...loop.snapshots.map(
          (s) =>
            `| ${s.iteration} | ${s.errors} | ${s.warnings} | ${s.securityIssues} | ${s.testsFailed} / ` +
            `${s.testsRun} | ${issueCount(s)} | ${s.checks.map((c) => `${c.name}: ${c.status}`).join(", ")} |`,
        ),
      ]
    : [
        loop.settings.checks.length
          ? "The checks never ran (no completion was claimed)."
          : "No checks were configured or detected.",
      ]
  return [
    "# Ralph report",
    "",
    `- Task: ${loop.task.split("\n")[0]}`,
    `- Ended: ${loop.stopReason ?? loop.phase}${loop.detail ? ` — ${loop.detail}` : ""}`,
    `- Iterations: ${loop.iteration} of at most ${maxIterations(loop)} (${loop.retries} ` +
      `restart${loop.retries === 1 ? "" : "s"}), strategy ${loop.settings.strategy}`,
    `- Time: ${minutes} min, from ${new Date(loop.startedAt).toISOString()} to ${new Date(now).toISOString()}`,
    ...(checkpoints.length ? [`- ${checkpointsLine(loop.id, checkpoints)}`] : []),
    `- Tokens: ${usage.tokens.toLocaleString("en")} · cost: ${usage.cost.toFixed(4)}`,
    `- Sessions: ${[...loop.lineage, loop.sessionID].join(" → ")}`,
    `- Circuit breaker: ${loop.breaker.state}${loop.breaker.reason ? ` (last opened: ${loop.breaker.reason})` : ""}`,
    "",
    ...planReportLines(loop.plan),
    ...reportEvidenceLines(loop.evidence, loop),
    "## Checks over time",
    "",
    ...checks,
    "",
    "## Open gotchas (checks still failing at the end)",
    "",
    ...(openGotchas(loop).length
      ? openGotchas(loop).map(
          (g) => `- ${g.title} (iteration ${g.iteration}${g.files.length ? `; ${g.files.join(", ")}` : ""})`,
        )
      : ["(none)"]),
    "",
    "## Files changed since the loop began",
    "",
    ...(files.length ? files.map((f) => `- \`${f.code.trim() || "M"}\` ${f.path}`) : ["(none)"]),
    "",
  ].join("\n")
}

function openGotchas(loop: Loop) {
  const last = loop.snapshots.at(-1)
  return loop.gotchas.filter((g) =>
    last?.checks.some((c) => c.status !== "passed" && g.title.startsWith(`${c.name}: `)),
  )
}

/** Where a loop's report is written: <summaryPath>/<loopID>/ralph_report.md (throws for an unsafe id or path). */
export const reportFile = (
  directory: string,
  loop: Pick<Loop, "id"> & { settings: Pick<Loop["settings"], "summaryPath"> },
): string => join(sessionDir(directory, loop.settings.summaryPath, loop.id), "ralph_report.md")

export async function writeReport(
  directory: string,
  loop: Loop,
  files: Array<{ code: string; path: string }>,
  now: number,
  checkpoints: readonly Checkpoint[] = [],
): Promise<string> {
  const file = reportFile(directory, loop)
  await writeFileAtomic(file, renderReport(loop, files, now, checkpoints), directory)
  return file
}

type ReportOf = Parameters<typeof reportFile>[1]

export const htmlReportFile = (directory: string, saved: { loop: ReportOf; savedAt?: number }): string =>
  join(dirname(reportFile(directory, saved.loop)), "ralph_report.html")

/**
 * Whether a stopped loop's instance has written its end files: its old sessions archived, and its
 * HTML report (written last) there. A loop whose id or summaryPath makes no path has none to wait for.
 */
export function endFilesWritten(
  directory: string,
  saved: { loop: ReportOf & { retiring: readonly string[] }; savedAt?: number },
): boolean {
  if (saved.loop.retiring.length > 0) return false
  try {
    return existsSync(htmlReportFile(directory, saved))
  } catch {
    return true
  }
}
