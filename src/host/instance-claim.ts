// One copy of ralph-loop acts for an OpenCode instance, however often the package is listed.
// OpenCode loads each listing that reaches a different module (a path and a `ralph-loop@file:` spec,
// a global and a project listing, a symlink) as a module of its own, so two copies share no module
// state: two engines would prompt every loop twice. They do share globalThis, where this registry
// lives, keyed by the instance's directory (one process hosts several instances: the project's and
// each worktree loop's) and by the half (the server plugin, the TUI plugin).

/** The registry's key: the same Symbol in every copy, whatever its version. */
const REGISTRY = Symbol.for("ralph-loop.instance-claims")

export type ClaimHalf = "server" | "tui"

/** What this copy was loaded from: the claim's owner is named in the other copies' log line. */
const THIS_COPY: string = import.meta.url

export type Claim =
  /** This copy acts for the instance; `release` gives it up (on dispose), so a re-created instance can claim it. */
  | { owner: true; release(): void }
  /** Another copy acts here (`holder`: the module it was loaded from); this one stays out. */
  | { owner: false; holder: string }

interface Held {
  readonly token: object
  readonly copy: string
}

function registry(): Map<string, Held> {
  const global = globalThis as { [REGISTRY]?: Map<string, Held> }
  global[REGISTRY] ??= new Map()
  return global[REGISTRY]
}

/**
 * Claims `directory` for this copy. The first claim wins until it is released; any later one, from
 * another copy or from this same module called twice (two listings OpenCode resolved to one module),
 * is refused while it holds.
 */
export function claimInstance(half: ClaimHalf, directory: string, copy: string = THIS_COPY): Claim {
  const key = `${half}\u0000${directory}`
  const claims = registry()
  const held = claims.get(key)
  if (held) return { owner: false, holder: held.copy }
  const token = {}
  claims.set(key, { token, copy })
  return {
    owner: true,
    // Only its own claim: a release that comes after a newer claim leaves that one alone.
    release: () => {
      if (claims.get(key)?.token === token) claims.delete(key)
    },
  }
}

/** The log line of a copy that stays out. */
export function deferredText(half: ClaimHalf, directory: string, holder: string, copy: string = THIS_COPY): string {
  const what = half === "server" ? "loop engine, control channel, tools and commands" : "TUI commands and sidebar"
  return (
    `ralph-loop is listed more than once for ${directory}: the copy loaded from ${holder} runs here, ` +
    `this one (${copy}) stays out (no second ${what}). \`ralph-loop doctor\` shows the listings.`
  )
}
