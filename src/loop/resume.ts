// /ralph-resume: a paused loop goes on with its same iteration; a waiting one goes on as its wait
// would have. Going on by hand after the breaker opened is the breaker's probe.
import { probe, type Breaker } from "./breaker.js"
import type { GoOnHow } from "./go-on.js"
import type { Loop } from "./loop.js"

export function resumeByHand(loop: Loop): { how: GoOnHow; breaker: Breaker } {
  const how: GoOnHow = { then: loop.wait?.then ?? "resume", fresh: loop.wait?.fresh ?? false }
  return { how, breaker: loop.wait?.reason === "breaker" ? probe(loop.breaker) : loop.breaker }
}
