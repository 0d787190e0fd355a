// The loops on disk as they were last saved, ended ones included: /ralph-status shows a loop after
// it ended, also after OpenCode restarted (the running loops are in memory; a stopped one only
// here). Read-only and bounded: only the newest files are read. It never throws — a file that
// cannot be read or fails the schema is left out (LoopStore.load reports those at start-up).
import { readdir, readFile, stat } from "node:fs/promises"
import { join } from "node:path"
import { loopFromState, type Loop } from "../loop/loop.js"
import { persistedLoopSchema } from "./loop-schema.js"

export interface SavedLoop {
  loop: Loop
  /** When its file was last written: for a stopped loop, when it ended. */
  savedAt: number
}

/** A state file's text as a saved loop; undefined when it is not one. */
export function parseSavedLoop(text: string): SavedLoop | undefined {
  try {
    const data = persistedLoopSchema.parse(JSON.parse(text))
    const savedAt = Date.parse(data.savedAt)
    return { loop: loopFromState(data.loop), savedAt: Number.isNaN(savedAt) ? data.loop.startedAt : savedAt }
  } catch {
    return undefined
  }
}

/** The `limit` most recently written loops in `loopsDir`, newest first. */
export async function readNewestLoops(loopsDir: string, limit: number): Promise<SavedLoop[]> {
  try {
    const names = (await readdir(loopsDir)).filter((name) => name.endsWith(".json"))
    const dated = await Promise.all(
      names.map(async (name) => {
        const file = join(loopsDir, name)
        const info = await stat(file).catch(() => undefined)
        return info?.isFile() ? { file, writtenAt: info.mtimeMs } : undefined
      }),
    )
    const newest = dated
      .filter((f) => f !== undefined)
      .sort((a, b) => b.writtenAt - a.writtenAt)
      .slice(0, limit)
    const loops = await Promise.all(newest.map(({ file }) => readFile(file, "utf8").then(parseSavedLoop, () => undefined)))
    return loops.filter((l) => l !== undefined).sort((a, b) => b.savedAt - a.savedAt)
  } catch {
    return []
  }
}
