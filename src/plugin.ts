// server(): one call per OpenCode instance (project directory). Wires settings, the loop manager
// and the action runner, and returns the hooks — each wrapped so nothing ever throws into OpenCode.
import type { Hooks, Plugin } from "@opencode-ai/plugin"
import { ActionRunner } from "./actions/runner.js"
import { LiveSettings } from "./config/live-settings.js"
import { globalConfigDir } from "./config/load.js"
import type { RalphContext } from "./context.js"
import { chatMessageHook } from "./hooks/chat-message.js"
import { compactionAutocontinueHook } from "./hooks/compaction-autocontinue.js"
import { commandHook } from "./hooks/command-execute.js"
import { configHook } from "./hooks/config.js"
import { eventHook } from "./hooks/event.js"
import { systemTransformHook } from "./hooks/system-transform.js"
import { LoopManager } from "./loop/manager.js"
import { OpencodeApi } from "./opencode/api.js"

export const server: Plugin = async (input, options) => {
  if (process.env.RALPH_LOOP_DISABLE === "1") return {}
  const api = new OpencodeApi(input.client, process.env.RALPH_LOOP_DEBUG === "1")
  const manager = new LoopManager()
  const settings = new LiveSettings({ directory: input.directory, globalDir: globalConfigDir(), options }, api)
  const ctx: RalphContext = {
    directory: input.directory,
    api,
    manager,
    runner: new ActionRunner(api, manager, { directory: input.directory }),
    settings,
    newSessions: new Set(),
    now: Date.now,
  }
  api.log("debug", "ralph-loop loaded", { directory: input.directory, settings: settings.current })

  const hooks: Hooks = {
    config: configHook(),
    event: eventHook(ctx),
    "command.execute.before": commandHook(ctx),
    "chat.message": chatMessageHook(ctx),
    "experimental.chat.system.transform": systemTransformHook(ctx),
    "experimental.compaction.autocontinue": compactionAutocontinueHook(ctx),
    dispose: async () => ctx.runner.dispose(),
  }
  return guard(hooks, api)
}

/** Every hook catches and logs its own errors: a throw would abort the user's operation. */
function guard(hooks: Hooks, api: OpencodeApi): Hooks {
  const guarded: Record<string, unknown> = {}
  for (const [name, hook] of Object.entries(hooks)) {
    guarded[name] =
      typeof hook === "function"
        ? async (...args: unknown[]) => {
            try {
              await (hook as (...a: unknown[]) => Promise<void>)(...args)
            } catch (error) {
              api.log("error", `hook ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
            }
          }
        : hook
  }
  return guarded as Hooks
}
