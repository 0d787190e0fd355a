// The phases of `ralph-loop run` from its start to the first journal line of its loop, and what a
// signal means in each (pure). Up to the /ralph request nothing has reached the plugin, so a signal
// ends the run with nothing sent after it. From the moment that request is on its way (or, for
// --resume, a server the run started has taken the loop back at its start) a loop may run: the
// signal is the loop's to obey — paused or cancelled through the plugin's control channel, as
// --on-interrupt says — and the run ends once the plugin said it did.

/** Where the run is, in order. */
export type RunPhase =
  /** The arguments, the project, the plugin's install and the loop to --resume checked. */
  | "preflight"
  /** `opencode serve` starting, or the --attach server asked whether it answers for the project. */
  | "booting"
  /** The server up: its /ralph looked up, its event stream subscribed to. */
  | "connecting"
  /** The run's session being created. */
  | "creating-session"
  /** /ralph sent (its answer comes when the first turn ended), or the loop to --resume found on the server. */
  | "following"

/** The phase boundaries a test can hold the run at (hold-point.ts), in the order the run passes them. */
export const HOLD_POINTS = [
  "preflight.done",
  "host.ready",
  "plugin.checked",
  "events.subscribed",
  "session.created",
  "command.sent",
] as const

export type HoldPoint = (typeof HOLD_POINTS)[number]

/** What a signal calls for: the run's end with nothing sent after it, or the loop stopped through the plugin. */
export type SignalMeaning = "nothing-sent" | "stop-the-loop"

/**
 * A signal in `phase`. `takenBack`: a --resume in a server the run started, which takes the loop
 * back (and, with resumeOnStart "auto", goes on with it) as soon as it has booted.
 */
export function signalMeaning(phase: RunPhase, takenBack: boolean): SignalMeaning {
  if (phase === "following") return "stop-the-loop"
  return takenBack && (phase === "connecting" || phase === "creating-session") ? "stop-the-loop" : "nothing-sent"
}

/** The end's detail for a signal that came before anything was sent. */
export function nothingSentDetail(phase: RunPhase, signal: string, resuming: boolean, attach: boolean): string {
  const nothing = resuming ? "the loop was not resumed" : "no loop was started"
  switch (phase) {
    case "preflight":
      return `${signal} before the server was ${attach ? "asked" : "started"}; ${nothing}`
    case "booting":
      return `${signal} while ${attach ? "waiting for the server" : "OpenCode booted"}; ${nothing}`
    default:
      return `${signal} before ${resuming ? "the resume" : "/ralph"} was sent; ${nothing}`
  }
}
