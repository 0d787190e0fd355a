// /ralph-resume: a paused loop goes on with its same iteration; a waiting one goes on as its wait
// would have. Going on by hand after the breaker opened is the breaker's probe.
import { probe, type Breaker } from "./breaker.js"
import type { ResumeHow } from "./go-on.js"
import type { Loop } from "./loop.js"

export function resumeByHand(loop: Loop): { how: ResumeHow; breaker: Breaker } {
  const how: ResumeHow = {
    then: loop.wait?.then ?? "resume",
    fresh: loop.wait?.fresh ?? false,
    ...(loop.recoveryPending ? { recover: true } : {}),
  }
  return { how, breaker: loop.wait?.reason === "breaker" ? probe(loop.breaker) : loop.breaker }
}
