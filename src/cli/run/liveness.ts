// Whether an OpenCode server the runner did not start (--attach) is still there. Its process is not
// ours to watch, so it is asked: GET /global/health every second. A refused connection means nothing
// listens on its port any more: twice in a row, and the server is gone. A server that is there but
// slow (a busy machine held its answers for seconds in CI) is given a minute without any answer
// before it counts as gone. A drop of the event stream asks at once.
const EVERY_MS = 1_000
const ANSWER_MS = 10_000
const REFUSALS = 2
const SILENT_MS = 60_000

export interface Liveness {
  /** Resolves, with what was seen, once the server stopped answering. */
  readonly gone: Promise<string>
  /** Asks now (the event stream dropped). */
  check(): void
  stop(): void
}

/** What one health request found. */
type Health = { ok: true } | { ok: false; refused: boolean; problem: string }

export function watchLiveness(url: string, now: () => number = Date.now): Liveness {
  let stopped = false
  let refusals = 0
  let answeredAt = now()
  let timer: NodeJS.Timeout | undefined
  let asking = false
  let settle: (how: string) => void = () => undefined
  const gone = new Promise<string>((resolve) => (settle = resolve))
  const next = () => {
    timer = setTimeout(() => void ask(), EVERY_MS)
    timer.unref()
  }
  const ask = async (): Promise<void> => {
    if (stopped || asking) return
    asking = true
    clearTimeout(timer)
    const health = await askHealth(url)
    asking = false
    if (stopped) return
    if (health.ok) {
      refusals = 0
      answeredAt = now()
    } else {
      refusals = health.refused ? refusals + 1 : 0
      const silent = now() - answeredAt
      if (refusals >= REFUSALS || silent >= SILENT_MS) {
        stopped = true
        settle(
          `stopped answering (${health.problem}` +
            `${refusals >= REFUSALS ? "" : `; no answer for ${Math.round(silent / 1000)} s`})`,
        )
        return
      }
    }
    next()
  }
  next()
  return {
    gone,
    check: () => void ask(),
    stop: () => {
      stopped = true
      clearTimeout(timer)
    },
  }
}

async function askHealth(url: string): Promise<Health> {
  try {
    const res = await fetch(`${url}/global/health`, { signal: AbortSignal.timeout(ANSWER_MS) })
    await res.body?.cancel()
    return res.ok ? { ok: true } : { ok: false, refused: false, problem: `GET /global/health answered ${res.status}` }
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError")
      return { ok: false, refused: false, problem: `no answer to GET /global/health within ${ANSWER_MS / 1000} s` }
    const cause =
      error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined
    const problem =
      typeof cause?.message === "string" ? cause.message : error instanceof Error ? error.message : String(error)
    return { ok: false, refused: cause?.code === "ECONNREFUSED", problem }
  }
}
