// Where the settings live: the file names and folders every reader of them shares (the loader,
// the boot-time switch, the CLI). Nothing heavy is imported here: the plugin reads it at boot.
import { homedir } from "node:os"
import { join } from "node:path"

/** The settings file names, in the global config folder and the project's .opencode/; the first found wins. */
export const SETTINGS_FILES = ["ralph-loop.jsonc", "ralph-loop.json"]
/** OpenCode's own config files, where seed 000 put a "ralph-loop" block. */
export const OPENCODE_FILES = ["opencode.jsonc", "opencode.json"]
export const BLOCK_KEY = "ralph-loop"

export function globalConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "opencode")
}
