// Something the loop needed failed: pause it, say why, send nothing more.
import type { Loop } from "../../loop/loop.js"
import { notify, type Job } from "../effects.js"
import * as notice from "../../loop/notices.js"
import type { JobContext } from "./context.js"

export function* fail(ctx: JobContext, loop: Loop, what: string, error: unknown): Job {
  yield {
    kind: "log",
    level: "error",
    message: `${what}: ${String(error)}`,
    extra: { loop: loop.id, session: loop.sessionID },
    cause: error,
  }
  if (loop.phase === "stopped") return
  ctx.manager.pause(loop, `${what} (${error instanceof Error ? error.message : String(error)})`, "loop")
  yield* notify(notice.failed(what, error))
}

/** Runs `job`; a failure inside it pauses the loop instead of escaping. */
export function* orFail(ctx: JobContext, loop: Loop, what: string, job: Job): Job {
  try {
    yield* job
  } catch (error) {
    yield* fail(ctx, loop, what, error)
  }
}
