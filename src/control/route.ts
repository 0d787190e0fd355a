// Which OpenCode process answers a control request, when several run on one project (a TUI and
// `ralph-loop run`, two TUIs, `opencode serve`): each reads the request and asks this rule; only
// the one it names takes the request, the others leave the file alone. Pure.
//
//   a loop's request (pause, resume, cancel, hint, rollback; status in a loop's session)
//       → the loop's owner: the instance that runs it (its state names it, its heartbeat says it runs)
//   no loop meant, or a loop no live process owns (it ended, its owner stopped), remember, forget,
//   clean, a status outside a loop's session, a request that cannot be read
//       → the holder of the project's lease (src/owner/lease-rule.ts), which answers for the project
//
// And what waits for what in the process that takes it: a status never waits (it only reads);
// the acts on one loop one at a time (`queue`), acts on different loops side by side.
import type { ControlRequest } from "./request.js"
import { whichLoop } from "./which-loop.js"

interface RoutedLoop {
  id: string
  sessionID: string
  lineage: readonly string[]
}

/** A live loop on disk that this process does not run, and what its owner's heartbeat says. */
export interface OthersLoop extends RoutedLoop {
  owner: { alive: boolean; described: string } | undefined
}

export interface RouteFacts {
  /** The live loops this process runs. */
  mine: readonly RoutedLoop[]
  /** The other live loops of the project's state folder. */
  others: readonly OthersLoop[]
  /** This process holds the project's lease. */
  leaseHolder: boolean
}

export type Route =
  /** Left to another process; `why` for the log. */
  | { take: false; why: string }
  /**
   * Taken: `queue` names what it waits behind (undefined: nothing); `refusal` set: answered with it
   * (the lease holder answering for a loop it does not run), not acted on.
   */
  | { take: true; queue: string | undefined; refusal?: Refusal }

interface Refusal {
  title: string
  message: string
}

const inSession = (session: string) => (loop: RoutedLoop) =>
  loop.sessionID === session || loop.lineage.includes(session)

export function routeRequest(request: ControlRequest | undefined, facts: RouteFacts): Route {
  const forProject = (queue: string | undefined, refusal?: Refusal): Route =>
    facts.leaseHolder
      ? { take: true, queue, ...(refusal === undefined ? {} : { refusal }) }
      : { take: false, why: "for the project's lease holder" }
  if (!request) return forProject(undefined)
  const { verb } = request
  if (verb === "remember" || verb === "forget") return forProject("memory")
  if (verb === "clean") return forProject("clean")
  if (verb === "status") {
    if (request.session === undefined) return forProject(undefined)
    if (facts.mine.some(inSession(request.session))) return { take: true, queue: undefined }
    const other = facts.others.find(inSession(request.session))
    if (other?.owner?.alive) return { take: false, why: `loop ${other.id} is run by ${other.owner.described}` }
    return forProject(undefined)
  }
  // A loop named: this process's own first (an exact id or the start of one); none named: the
  // project's one live loop, whoever runs it.
  const own = request.loop === undefined ? undefined : whichLoop(facts.mine, request.loop)
  if (own?.ok) return { take: true, queue: `loop ${own.loop.id}` }
  const mineIds = new Set(facts.mine.map((l) => l.id))
  const any = whichLoop([...facts.mine, ...facts.others.filter((l) => !mineIds.has(l.id))], request.loop)
  if (any.ok && mineIds.has(any.loop.id)) return { take: true, queue: `loop ${any.loop.id}` }
  if (any.ok) {
    const { owner } = any.loop as OthersLoop
    if (owner?.alive) return { take: false, why: `loop ${any.loop.id} is run by ${owner.described}` }
    if (owner) {
      const message =
        `The Ralph loop ${any.loop.id} is run by ${owner.described}, so nothing can act on it now. ` +
        "OpenCode takes it back when it starts again in this project (or `ralph-loop run --resume`)."
      return forProject(undefined, { title: "Ralph · the loop's OpenCode is not running", message })
    }
    return forProject(`loop ${any.loop.id}`)
  }
  // A rollback may name an ended loop (its act reads it from disk); anything else is refused with
  // the reason the project's loops give (the lease holder's own would name only its own).
  if (verb === "rollback" && request.loop !== undefined) return forProject(`loop ${request.loop}`)
  return forProject(undefined, { title: "Ralph · no such loop", message: any.reason })
}
