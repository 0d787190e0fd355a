import type { Hooks } from "@opencode-ai/plugin"
import { COMMANDS } from "../commands/definitions.js"

/** Registers the commands; a command the user defined under the same name wins. */
export const configHook = (): NonNullable<Hooks["config"]> => async (config) => {
  config.command = { ...COMMANDS, ...(config.command ?? {}) }
}
