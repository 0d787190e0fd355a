// The model's shell is marked (issue 46): every command a model's tool call runs gets
// RALPH_LOOP_MODEL_SESSION, its session, in its environment, so `ralph-loop accept` run there says so
// and the plugin refuses it (src/acts/accept.ts): only the user accepts what refused a claim. A
// person's shell command in a session (the TUI's `!`) and a terminal are not a tool call the tool
// guard saw, so they are not marked.
import type { Hooks } from "@opencode-ai/plugin"
import { MODEL_SESSION_ENV } from "../evidence/accepted.js"

type ShellEnvHook = NonNullable<Hooks["shell.env"]>

/** The tool calls the model made lately, by id: what tool.execute.before saw (bounded). */
export class ModelCalls {
  private readonly ids = new Set<string>()

  constructor(private readonly kept = 500) {}

  saw(callID: string): void {
    this.ids.add(callID)
    if (this.ids.size > this.kept) this.ids.delete(this.ids.values().next().value as string)
  }

  has(callID: string | undefined): boolean {
    return callID !== undefined && this.ids.has(callID)
  }
}

export const shellEnvHook =
  (calls: ModelCalls): ShellEnvHook =>
  async (input, output) => {
    if (input.sessionID !== undefined && calls.has(input.callID)) output.env[MODEL_SESSION_ENV] = input.sessionID
  }
