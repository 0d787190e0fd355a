// server(): called once per OpenCode instance (project directory) for each listing of the package
// OpenCode loads as a module of its own; only the first copy acts (src/host/instance-claim.ts).
// It returns at once: the loop's machinery (zod, jsonc-parser and the rest, ~150 ms to load the first
// time) is imported when a hook first has work, or a second after start — not while OpenCode boots,
// and never once the instance is disposed. Registering the commands and skipping the stream of
// irrelevant events need nothing of it.
import type { Hooks, Plugin } from "@opencode-ai/plugin"
import { enabledBySettings } from "./config/enabled.js"
import { globalConfigDir } from "./config/files.js"
import { configHook } from "./hooks/config.js"
import { toolDefinitions } from "./hooks/tools.js"
import type { V1Hooks } from "./hooks/v1-hooks.js"
import { claimInstance, deferredText } from "./host/instance-claim.js"
import { OBSERVED_EVENTS } from "./host/events.js"

const SKIPPED = Promise.resolve()

/** After this long without a hook needing it, the machinery loads anyway (recovery runs then). */
const LOAD_AFTER_MS = 1_000

export const server: Plugin = async (input, options) => {
  if (process.env.RALPH_LOOP_DISABLE === "1" || !enabledBySettings(input.directory, globalConfigDir(), options))
    return {}
  // Listed twice (a path and a file: spec, global and project…): the first copy acts, this one has no hooks at all.
  const claim = claimInstance("server", input.directory)
  if (!claim.owner) {
    const message = deferredText("server", input.directory, claim.holder)
    void Promise.resolve()
      .then(() => input.client.app.log({ body: { service: "ralph-loop", level: "warn", message } }))
      .catch(() => undefined)
    return {}
  }
  let loaded: Hooks | undefined
  let loading: Promise<Hooks> | undefined
  // Once disposed nothing of it runs: the load timer is cleared, and no hook loads it any more.
  const disposed = new AbortController()
  // Loaded when a hook first has work, or a moment after OpenCode's start — never during it.
  const load = (): Promise<Hooks> =>
    (loading ??= import("./instance.js")
      .then(async (m) => {
        loaded = await m.createInstance(input, options, disposed.signal)
        return loaded
      })
      .catch((error: unknown) => {
        logLoadFailure(input, error)
        loaded = {}
        return loaded
      }))
  const timer = setTimeout(() => void load(), LOAD_AFTER_MS)
  timer.unref?.()
  /** The machinery's hooks, loaded if need be; none once disposed (also when that came during the load). */
  const hooks = async (): Promise<Hooks> => {
    if (disposed.signal.aborted) return {}
    const found = loaded ?? (await load())
    return disposed.signal.aborted ? {} : found
  }
  const later =
    <K extends keyof Hooks>(name: K) =>
    async (...args: unknown[]) => {
      const hook = (await hooks())[name] as ((...a: unknown[]) => Promise<void>) | undefined
      await hook?.(...args)
    }
  const event = later("event")
  const textComplete = later("experimental.text.complete")
  return {
    config: configHook(input.directory),
    // The tools are declared now (OpenCode reads them as it builds its tool list); a call runs in the machinery.
    tool: toolDefinitions(async (name, args, context) => {
      const call = (await hooks()).tool?.[name]
      return call ? call.execute(args as never, context) : "ralph-loop could not load; see OpenCode's log."
    }),
    event: (input) =>
      !OBSERVED_EVENTS.has(input.event.type) || disposed.signal.aborted
        ? SKIPPED
        : loaded?.event
          ? loaded.event(input)
          : event(input),
    "command.execute.before": later("command.execute.before"),
    "chat.message": later("chat.message"),
    "experimental.chat.system.transform": later("experimental.chat.system.transform"),
    "experimental.chat.messages.transform": later("experimental.chat.messages.transform"),
    "chat.params": later("chat.params"),
    "experimental.compaction.autocontinue": later("experimental.compaction.autocontinue"),
    "experimental.session.compacting": later("experimental.session.compacting"),
    "tool.execute.before": later("tool.execute.before"),
    "shell.env": later("shell.env"),
    // Every text part the model completes passes here: only one that holds a <remember> tag is looked at.
    "experimental.text.complete": (input, output) =>
      /<remember/i.test(output.text) ? textComplete(input, output) : SKIPPED,
    // Disposing an instance that never loaded must not load it (that would start recovery).
    dispose: async () => {
      // Released first, before anything is awaited: an instance OpenCode re-creates meanwhile can claim it.
      claim.release()
      clearTimeout(timer)
      disposed.abort()
      if (loading) await (await loading).dispose?.()
    },
    // Each of the host port's inputs (HostHooks) has its hook here: src/hooks/v1-hooks.ts.
  } satisfies V1Hooks
}

/** A failed load is reported once through OpenCode's log; the hooks then do nothing. */
function logLoadFailure(input: Parameters<Plugin>[0], error: unknown): void {
  input.client.app
    .log({ body: { service: "ralph-loop", level: "error", message: `ralph-loop failed to load: ${String(error)}` } })
    .catch(() => undefined)
}
