// The tools the plugin offers the model: what OpenCode shows of them. Plain data, read while
// OpenCode boots — the calls themselves run in the loaded machinery (tool-calls.ts).
//
// The arguments are JSON Schema properties, not zod: OpenCode 1.18 takes either (a plugin tool
// whose args have no `_zod` becomes an object schema of those properties, all required), and zod
// would cost the boot ~60 ms. The calls validate what they get with zod.
import type { ToolContext, ToolDefinition, ToolResult } from "@opencode-ai/plugin"

export const TOOL_NAMES = ["ralph_done", "ralph_status"] as const
export type ToolName = (typeof TOOL_NAMES)[number]

export const TOOL_SPECS: Record<ToolName, { description: string; args: Record<string, object> }> = {
  ralph_done: {
    description:
      "Declare the Ralph loop's task (in a plan loop: the current story) done. Call it only when everything " +
      "asked for works. " +
      "The plugin runs the loop's checks at once and answers whether the claim is accepted, and if not, why — " +
      "then keep working. " +
      "Only meaningful in a session with a Ralph loop (/ralph).",
    args: {
      summary: { type: "string", description: "What was done, in a few sentences." },
      evidence: {
        type: "array",
        items: { type: "string" },
        description: "What you verified: the commands you ran and what they showed, the files you checked.",
      },
    },
  },
  ralph_status: {
    description:
      "Read the Ralph loop's state: iteration and limits, budgets, the current story of a plan, the last check " +
      "results. Changes nothing.",
    args: {},
  },
}

export type ToolCall = (name: ToolName, args: unknown, context: ToolContext) => Promise<ToolResult>

/** The tool definitions OpenCode registers; each call goes to `call`. */
export function toolDefinitions(call: ToolCall): Record<ToolName, ToolDefinition> {
  const definition = (name: ToolName): ToolDefinition =>
    // The cast: OpenCode accepts JSON Schema properties where the type says zod (see above).
    ({
      ...TOOL_SPECS[name],
      execute: (args: unknown, context: ToolContext) => call(name, args, context),
    }) as unknown as ToolDefinition
  return { ralph_done: definition("ralph_done"), ralph_status: definition("ralph_status") }
}
