// The host port's inputs (HostHooks, src/host/port.ts) as OpenCode 1.x's plugin hooks: which hook
// carries each one (docs/architecture.md's table), and the type the plugin's hooks are checked
// against (src/plugin.ts). A port input without its hook, or a name OpenCode has no hook by, fails
// `npm run typecheck`. The hooks keep OpenCode's own signatures (they change its output objects in
// place), so what is checked is that each input is wired, not its shape.
import type { Hooks } from "@opencode-ai/plugin"
import type { HostHooks } from "../host/port.js"

/** A complete map from the port's inputs to OpenCode's hook names. */
type HookNames<T extends Record<keyof HostHooks, keyof Hooks>> = T

/** The OpenCode 1.x hook of each port input. */
type V1HookOf = HookNames<{
  event: "event"
  userMessage: "chat.message"
  command: "command.execute.before"
  tool: "tool"
  toolGuard: "tool.execute.before"
  shellEnv: "shell.env"
  requestMessages: "experimental.chat.messages.transform"
  requestParams: "chat.params"
  systemText: "experimental.chat.system.transform"
  textCompleted: "experimental.text.complete"
  compacting: "experimental.session.compacting"
  autoContinue: "experimental.compaction.autocontinue"
  dispose: "dispose"
}>

/** OpenCode's hooks with the one of each port input present (others, such as `config`, as OpenCode has them). */
export type V1Hooks = Hooks & { [K in keyof HostHooks as V1HookOf[K]]-?: NonNullable<Hooks[V1HookOf[K]]> }
