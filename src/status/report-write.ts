// Writes ralph_report.html beside ralph_report.md (<summaryPath>/<loopID>/): when a loop ends, and
// on `ralph-loop report` for one still running. The history comes from the project's journals.

import { join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { histories } from "./history.js"
import { statusDocument } from "./document.js"
import { writeFileAtomic } from "../files/atomic.js"
import { readDecidedLines } from "../store/journal-history.js"
import { htmlReportFile } from "../store/report.js"
import type { StatusSaved } from "./status-loop.js"
import { renderHtmlReport } from "./report-html.js"

/** Writes the loop's HTML report and returns its path (throws when it cannot). */
export async function writeHtmlReport(directory: string, saved: StatusSaved, now: number): Promise<string> {
  const history = histories(await readDecidedLines(join(directory, STATE_DIR)))
  const selected = statusDocument(directory, [saved], history, saved.loop.id, now).selected
  if (!selected) throw new Error(`no loop ${saved.loop.id}`)
  const file = htmlReportFile(directory, saved)
  await writeFileAtomic(file, renderHtmlReport(selected, now), directory)
  return file
}
