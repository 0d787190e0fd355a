// The smallest useful "keep going" plugin, as the baseline for bench/idle-to-prompt.ts: on each
// real end of a turn (a busy status, then session.idle) it re-prompts the session with
// promptAsync, up to `limit` times per session. No reading, no deciding, no files.
// Loaded by OpenCode as a path plugin in module form: `export default { id, server }`.

export default {
  id: "ralph-bench-minimal",
  /** @param {{ client: any }} input @param {{ limit?: number } | undefined} options */
  server: async ({ client }, options) => {
    const limit = options?.limit ?? 5
    const sawBusy = new Set()
    const sent = new Map()
    return {
      event: async ({ event }) => {
        try {
          const { sessionID, status } = event.properties ?? {}
          if (event.type === "session.status" && status?.type === "busy") sawBusy.add(sessionID)
          if (event.type !== "session.idle" || !sawBusy.delete(sessionID)) return // the re-entrancy guard
          const count = sent.get(sessionID) ?? 0
          if (count >= limit) return
          sent.set(sessionID, count + 1)
          await client.session.promptAsync({
            path: { id: sessionID },
            body: { parts: [{ type: "text", text: "Continue the task." }] },
          })
        } catch {
          // a baseline plugin never throws into OpenCode either
        }
      },
    }
  },
}
