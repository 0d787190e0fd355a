// `ralph-loop clean` asked of the OpenCode that holds the project's lease, through the control channel
// (src/control/; acts/clean.ts answers). A clean may take a while: it is given as long to answer as a
// rollback. The days and --force are the command's own.
import { type ControlOutcome, sendControl } from "../control/client.js"
import { DEFAULT_DAYS } from "../clean/clean-loops.js"
import type { CliArgs } from "./args.js"

export const askCleanOf = (args: CliArgs): Promise<ControlOutcome> =>
  sendControl(args.project, {
    verb: "clean",
    // More than this many days back is before any loop ran: the request's schema stops there.
    days: Math.min(args.days ?? DEFAULT_DAYS, 1_000_000),
    force: args.force,
    from: "ralph-loop clean",
  })
