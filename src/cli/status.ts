// `ralph-loop status [--project DIR] [LOOP] [--json] [--watch]` and `ralph-loop report [LOOP]`:
// a project's loops read from their files alone — while OpenCode runs them, or after it exited.
import { existsSync, watch, type FSWatcher } from "node:fs"
import { dirname, join } from "node:path"
import { STATE_DIR } from "../project/own-files.js"
import { writeHtmlReport } from "../status/report-write.js"
import { statusDocument, type StatusDocument } from "../status/document.js"
import { statusLines } from "../status/lines.js"
import { readProjectLoops } from "../status/read-project.js"
import type { CliArgs } from "./args.js"
import { terminalText } from "./terminal-text.js"

/** Clears the screen and puts the cursor at the top left: --watch's redraw. */
const CLEAR_SCREEN = "\x1b[2J\x1b[H"

/** --watch redraws at most this often, however many files change. */
export const REDRAW_MS = 1000

export async function projectStatus(project: string, loop: string | undefined, now: number): Promise<StatusDocument> {
  const { loops, history } = await readProjectLoops(project)
  return statusDocument(project, loops, history, loop, now)
}

/** The status as printed: the JSON document, or the text. */
const render = (doc: StatusDocument, json: boolean): string =>
  json ? JSON.stringify(doc, null, 2) : statusLines(doc).join("\n")

export async function status(args: CliArgs, out: (text: string) => void): Promise<number> {
  const doc = await projectStatus(args.project, args.loop, Date.now())
  if (args.loop !== undefined && doc.selected === null) {
    out(`No loop ${args.loop} in ${args.project}.`)
    return 1
  }
  if (!args.watch) {
    out(render(doc, args.json))
    return 0
  }
  return watchStatus(args, out)
}

/**
 * Redraws on every change of the loops' files (fs.watch on the state folder and its loops folder;
 * never more often than REDRAW_MS) until interrupted.
 */
function watchStatus(args: CliArgs, out: (text: string) => void): Promise<number> {
  const watchers: FSWatcher[] = []
  let last = 0
  let timer: NodeJS.Timeout | undefined
  let drawing = false
  const draw = async () => {
    timer = undefined
    if (drawing) return void schedule()
    drawing = true
    last = Date.now()
    try {
      const doc = await projectStatus(args.project, args.loop, last)
      // --json: one document per line (NDJSON), for a script to read as it comes; text: the screen
      // cleared (written here: `out` escapes control characters), then redrawn.
      if (!args.json) process.stdout.write(CLEAR_SCREEN)
      out(args.json ? JSON.stringify(doc) : render(doc, false))
    } catch (error) {
      // A file read mid-change is read again at the next change; the watch goes on.
      process.stderr.write(`${terminalText(`ralph-loop: ${error instanceof Error ? error.message : String(error)}`)}\n`)
    } finally {
      drawing = false
    }
    rewatch()
  }
  const schedule = () => {
    if (timer) return
    timer = setTimeout(() => void draw(), Math.max(0, last + REDRAW_MS - Date.now()))
  }
  let watched = ""
  const rewatch = () => {
    const dirs = watchedDirs(args.project)
    if (dirs.join("\n") === watched) return
    for (const w of watchers.splice(0)) w.close()
    for (const dir of dirs) watchers.push(watch(dir, schedule))
    watched = dirs.join("\n")
  }
  return new Promise((resolve) => {
    const stop = () => {
      for (const w of watchers.splice(0)) w.close()
      if (timer) clearTimeout(timer)
      resolve(0)
    }
    process.once("SIGINT", stop)
    process.once("SIGTERM", stop)
    void draw()
  })
}

/**
 * The state folder and its loops folder; before they exist, the nearest folder above them that does (to see them
 * appear).
 */
function watchedDirs(project: string): string[] {
  const stateDir = join(project, STATE_DIR)
  if (existsSync(stateDir)) return [stateDir, join(stateDir, "loops")].filter((dir) => existsSync(dir))
  const above = [dirname(stateDir), project].find((dir) => existsSync(dir))
  return above ? [above] : []
}

export async function report(args: CliArgs, out: (text: string) => void): Promise<number> {
  const { loops } = await readProjectLoops(args.project)
  const saved =
    args.loop === undefined
      ? loops[0]
      : (loops.find((l) => l.loop.id === args.loop) ?? loops.find((l) => l.loop.id.startsWith(args.loop as string)))
  if (!saved) {
    out(args.loop === undefined ? `No Ralph loop in ${args.project}.` : `No loop ${args.loop} in ${args.project}.`)
    return 1
  }
  // A worktree loop's files, its report among them, are in its worktree.
  out(await writeHtmlReport(saved.worktree?.path ?? args.project, saved, Date.now()))
  return 0
}
