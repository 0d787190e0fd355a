// A loop whose OpenCode stopped is taken back by a live one without a restart: at each heartbeat,
// the project's lease holder (one process per project, so two never take the same loop) asks for
// the live loops on disk whose owner is gone (src/owner/liveness.ts) and goes on with them as a
// start of OpenCode would (recover.ts: resumeOnStart "auto" goes on, "ask" pauses them for /ralph-resume).
import { io, type Job } from "../../effects/kernel.js"
import { log } from "../../effects/jobs.js"
import type { JobContext } from "./context.js"
import { goOnAll, whereTakenBack } from "./recover.js"

export function* takeBack(ctx: JobContext): Job {
  const running = ctx.manager.all().map((loop) => loop.id)
  const orphans = yield* io({ kind: "orphaned-loops", running })
  if (orphans.length === 0) return
  const adopted = ctx.manager.adoptAll(orphans, ctx.settings().resumeOnStart === "ask")
  for (const loop of adopted)
    yield* log("info", "a loop whose OpenCode stopped is taken back by this one", { loop: loop.id })
  yield* goOnAll(ctx, adopted, whereTakenBack(adopted), "its OpenCode stopped")
}
