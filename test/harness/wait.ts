// Waiting for a condition that no single event announces (a file on disk, a state across several
// sessions): it is checked every few milliseconds until it holds. This waits for the condition,
// not for a length of time — the interval only says how soon it is noticed.
const POLL_MS = 50

/**
 * Resolves with the first truthy value `condition` returns; rejects after `timeoutMs`, naming
 * `what` and, if given, what `seen` says about the state it last saw.
 */
export async function waitUntil<T>(
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 30_000,
  seen?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await condition()
    if (value) return value
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen ? `; last seen: ${seen()}` : ""}`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}
