// A loop that just ended gets its reports: ralph_report.md and ralph_report.html (never throws).
import { listCheckpoints } from "../checkpoints/checkpoint-git.js"
import { loopChangedFiles } from "../changes/loop-changes.js"
import type { Host } from "../host/port.js"
import type { Loop } from "../loop/loop.js"
import { writeReport } from "../store/report.js"
import { writeHtmlReport } from "./report-write.js"

/**
 * ralph_report.md and ralph_report.html for a loop that just ended (never throws). The HTML one
 * reads the loop's history from the journal, once its last lines are there (`saved`).
 */
export async function writeEndReports(directory: string, loop: Loop, api: Host, saved: Promise<void>): Promise<void> {
  try {
    // Not a git repository (or git failed): the report lists no files rather than not being written.
    const files = await loopChangedFiles(directory, loop).catch(() => [])
    const file = await writeReport(directory, loop, files, Date.now(), await listCheckpoints(directory, loop.id))
    api.log("info", "loop report written", { loop: loop.id, file })
  } catch (error) {
    api.log("warn", `could not write the loop report: ${String(error)}`, { loop: loop.id })
  }
  try {
    await saved
    const now = Date.now()
    const file = await writeHtmlReport(directory, { loop, savedAt: now }, now)
    api.log("info", "loop HTML report written", { loop: loop.id, file })
  } catch (error) {
    api.log("warn", `could not write the loop's HTML report: ${String(error)}`, { loop: loop.id })
  }
}
