// OpenCode calls every function this module exports as a plugin, so it exports only this.
import type { PluginModule } from "@opencode-ai/plugin"
import { server } from "./plugin.js"

export default { id: "ralph-loop", server } satisfies PluginModule
