// Whether an OpenCode server the runner did not start (--attach) is still there. Its process is not
// ours to watch, so it is asked: GET /global/health every second, each answer awaited a few seconds.
// Two misses in a row (refused, an error status, no answer in time) and the server is gone — the run
// says so and exits 1 instead of following a loop nobody runs. A drop of the event stream asks at once.
const EVERY_MS = 1_000
const ANSWER_MS = 3_000
const MISSES = 2

export interface Liveness {
  /** Resolves, with what was seen, once the server stopped answering. */
  readonly gone: Promise<string>
  /** Asks now (the event stream dropped). */
  check(): void
  stop(): void
}

export function watchLiveness(url: string): Liveness {
  let stopped = false
  let misses = 0
  let timer: NodeJS.Timeout | undefined
  let asking = false
  let settle: (how: string) => void = () => undefined
  const gone = new Promise<string>((resolve) => (settle = resolve))
  const ask = async (): Promise<void> => {
    if (stopped || asking) return
    asking = true
    clearTimeout(timer)
    const problem = await healthProblem(url)
    asking = false
    if (stopped) return
    misses = problem === undefined ? 0 : misses + 1
    if (problem !== undefined && misses >= MISSES) {
      stopped = true
      settle(`stopped answering (${problem})`)
      return
    }
    timer = setTimeout(() => void ask(), EVERY_MS)
    timer.unref()
  }
  timer = setTimeout(() => void ask(), EVERY_MS)
  timer.unref()
  return {
    gone,
    check: () => void ask(),
    stop: () => {
      stopped = true
      clearTimeout(timer)
    },
  }
}

/** Why the server did not answer its health request (undefined: it did). */
async function healthProblem(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/global/health`, { signal: AbortSignal.timeout(ANSWER_MS) })
    await res.body?.cancel()
    return res.ok ? undefined : `GET /global/health answered ${res.status}`
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") return `no answer to GET /global/health within ${ANSWER_MS / 1000} s`
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined
    return cause ?? (error instanceof Error ? error.message : String(error))
  }
}
