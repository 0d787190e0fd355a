// The route rule (route.ts) as one instance asks it: a request that names one of its own live loops
// (or asks for the status of one's session) is taken without a disk read; anything else is judged
// with the project's other loops and their owners, from disk.
import type { RalphContext } from "../engine/context.js"
import type { ControlRoute } from "./channel.js"
import { readOthersLoops } from "./route-facts.js"
import { routeRequest } from "./route.js"

export const controlRoute =
  (ctx: RalphContext, leaseHolder: () => Promise<boolean>): ControlRoute =>
  async (request) => {
    const mine = ctx.manager.all().filter((loop) => loop.phase !== "stopped")
    const inSession = request?.verb === "status" && request.session !== undefined
    const named = request !== undefined && (request.loop !== undefined || inSession)
    const own = named ? routeRequest(request, { mine, others: [], leaseHolder: false }) : undefined
    if (own?.take) return own
    const holder = await leaseHolder()
    const others = await readOthersLoops(ctx.directory, ctx.launcher.boot, ctx.now())
    return routeRequest(request, { mine, others, leaseHolder: holder })
  }
