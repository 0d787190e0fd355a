// The TUI half of ralph-loop (package export "./tui"): OpenCode loads it from tui.json. A module
// may default-export server() or tui(), never both, so the server half stays in src/index.ts.
import type { TuiPluginModule } from "@opencode-ai/plugin/tui"
import { tui } from "./plugin.js"

export default { id: "ralph-loop", tui } satisfies TuiPluginModule
