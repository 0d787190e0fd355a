// Writes ralph_report.html beside ralph_report.md (<summaryPath>/<loopID>/): when a loop ends, and
// on `ralph-loop report` for one still running. The history comes from the project's journals.
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { histories } from "./history.js"
import { statusDocument } from "./document.js"
import { writeFileAtomic } from "../files/atomic.js"
import { readDecidedLines } from "../store/journal-history.js"
import { reportFile } from "../store/report.js"
import type { StatusSaved } from "./status-loop.js"
import { renderHtmlReport } from "./report-html.js"

export const htmlReportFile = (directory: string, saved: StatusSaved): string =>
  join(dirname(reportFile(directory, saved.loop)), "ralph_report.html")

/**
 * Whether a stopped loop's instance has written its end files: its old sessions archived, and its
 * HTML report (written last) there. A loop whose id or summaryPath makes no path has none to wait for.
 */
export function endFilesWritten(
  directory: string,
  saved: StatusSaved & { loop: { retiring: readonly string[] } },
): boolean {
  if (saved.loop.retiring.length > 0) return false
  try {
    return existsSync(htmlReportFile(directory, saved))
  } catch {
    return true
  }
}

/** Writes the loop's HTML report and returns its path (throws when it cannot). */
export async function writeHtmlReport(directory: string, saved: StatusSaved, now: number): Promise<string> {
  const history = histories(await readDecidedLines(join(directory, STATE_DIR)))
  const selected = statusDocument(directory, [saved], history, saved.loop.id, now).selected
  if (!selected) throw new Error(`no loop ${saved.loop.id}`)
  const file = htmlReportFile(directory, saved)
  await writeFileAtomic(file, renderHtmlReport(selected, now), directory)
  return file
}
