// What the route rule (route.ts) needs from disk: the project's live loops that this instance does
// not run, each with its owner as its state file names it and as its heartbeat says
// (processes/<boot>.json). Also the client's words for an owner when no one answered. Never throws.
import { join } from "node:path"
import { z } from "zod"
import { usHere } from "../owner/heartbeat-files.js"
import { describeHeartbeat } from "../owner/heartbeat.js"
import { beatLiveness, ownerLiveness } from "../owner/liveness.js"
import { STATE_DIR } from "../project/own-files.js"
import { readPresence } from "../owner/presence-files.js"
import { listLoopsFolder } from "../store/saved-loops.js"
import { readRegularFile } from "../files/regular-file.js"
import type { OthersLoop } from "./route.js"

/** Only what routing reads of a state file (the whole schema is the store's). */
const ownedLoopSchema = z.object({
  owner: z.object({ pid: z.number().int(), host: z.string(), boot: z.string().optional() }).optional(),
  loop: z.object({ id: z.string(), sessionID: z.string(), lineage: z.array(z.string()), phase: z.string() }),
})

/** The live loops of `directory`'s state folder, with their owners, except those of `myBoot`. */
export async function readOthersLoops(
  directory: string,
  myBoot: string | undefined,
  now: number,
): Promise<OthersLoop[]> {
  const { state } = await listLoopsFolder(join(directory, STATE_DIR, "loops"))
  const presence = await readPresence(directory)
  const read = await Promise.all(
    state.map((entry) => readRegularFile(entry.file).then((r) => (r.ok ? parseOwned(r.text) : undefined))),
  )
  return read.flatMap((data): OthersLoop[] => {
    if (!data || data.loop.phase === "stopped") return []
    const { owner, loop } = data
    if (owner?.boot !== undefined && owner.boot === myBoot) return []
    const { id, sessionID, lineage } = loop
    if (!owner) return [{ id, sessionID, lineage, owner: undefined }]
    const beat = owner.boot === undefined ? undefined : presence.get(owner.boot)
    const { alive } = ownerLiveness(owner, beat, usHere(now, myBoot), presence.values())
    if (beat) return [{ id, sessionID, lineage, owner: { alive, described: describeHeartbeat(beat, now, alive) } }]
    // An owner without a heartbeat file (a version before them, a worktree's instance, one that
    // removed its file as it was disposed): its pid is all there is to ask.
    const described = `OpenCode (pid ${owner.pid}, ${alive ? "running" : "not running"})`
    return [{ id, sessionID, lineage, owner: { alive, described } }]
  })
}

function parseOwned(text: string): z.infer<typeof ownedLoopSchema> | undefined {
  try {
    const parsed = ownedLoopSchema.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Which takers of taken files no longer run, as instance `myBoot` sees them (the rule route.ts judges owners by). */
export async function stoppedTakers(
  directory: string,
  now: number,
  myBoot?: string,
): Promise<(taker: string | undefined) => boolean> {
  const presence = await readPresence(directory)
  return (taker) => {
    const beat = taker === undefined ? undefined : presence.get(taker)
    return !beat || !beatLiveness(beat, usHere(now, myBoot), presence.values()).alive
  }
}
