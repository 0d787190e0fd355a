// server(): called once per OpenCode instance (project directory). It returns at once: the loop's
// machinery (zod, jsonc-parser and the rest, ~150–300 ms to load the first time) is imported in the
// background, and each hook waits for it only when it has something to do. Registering the
// commands and skipping the stream of irrelevant events need nothing of it.
import type { Hooks, Plugin } from "@opencode-ai/plugin"
import { configHook } from "./hooks/config.js"
import { OBSERVED_EVENTS } from "./opencode/events.js"

const SKIPPED = Promise.resolve()

export const server: Plugin = async (input, options) => {
  if (process.env.RALPH_LOOP_DISABLE === "1") return {}
  const instance = import("./instance.js").then((m) => m.createInstance(input, options))
  // A failed load is reported once through OpenCode's log; the hooks then do nothing.
  const ready = instance.catch((error: unknown) => {
    input.client.app
      .log({ body: { service: "ralph-loop", level: "error", message: `ralph-loop failed to load: ${String(error)}` } })
      .catch(() => undefined)
    return {} as Hooks
  })
  const later =
    <K extends keyof Hooks>(name: K) =>
    async (...args: unknown[]) => {
      const hook = (await ready)[name] as ((...a: unknown[]) => Promise<void>) | undefined
      await hook?.(...args)
    }
  return {
    config: configHook(),
    event: (event) => (OBSERVED_EVENTS.has(event.event.type) ? later("event")(event) : SKIPPED),
    "command.execute.before": later("command.execute.before"),
    "chat.message": later("chat.message"),
    "experimental.chat.system.transform": later("experimental.chat.system.transform"),
    "experimental.compaction.autocontinue": later("experimental.compaction.autocontinue"),
    "experimental.session.compacting": later("experimental.session.compacting"),
    "tool.execute.before": later("tool.execute.before"),
    dispose: later("dispose"),
  }
}
