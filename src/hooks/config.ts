import type { Hooks } from "@opencode-ai/plugin"
import { COMMANDS } from "../host/commands.js"
import { REVIEW_AGENT } from "../review/settings.js"

/**
 * The reviewer's default agent: read-only — no writing, editing or patching, and of the shell only
 * git's reading commands. Hidden and a subagent, so it is neither in the agent cycle nor offered to
 * the loop's model as a task.
 */
const REVIEWER = {
  description: "ralph-loop's reviewer: judges a loop's change before it completes (read-only).",
  mode: "subagent",
  hidden: true,
  prompt:
    "You review another coding agent's change before its task is accepted. You read; you never change files. " +
    "Answer with the verdict format you are given.",
  tools: { write: false, edit: false, patch: false, task: false, todowrite: false },
  permission: {
    edit: "deny",
    webfetch: "deny",
    bash: { "*": "deny", "git diff*": "allow", "git log*": "allow", "git show*": "allow", "git status*": "allow" },
  },
} as const

/**
 * The commands to register: in OpenCode's TUI process with the TUI half listed, without those the TUI half runs itself.
 */
async function commandsFor(directory: string): Promise<typeof COMMANDS> {
  const { inTuiProcess, tuiHalfListed } = await import("../listings/tui-half.js")
  if (!inTuiProcess() || !tuiHalfListed(directory)) return COMMANDS
  const { TUI_COMMANDS } = await import("../host/tui-commands.js")
  return Object.fromEntries(
    Object.entries(COMMANDS).filter(([name]) => !(TUI_COMMANDS as readonly string[]).includes(name)),
  )
}

/** Registers the commands and the reviewer's agent; a command or agent the user defined under the same name wins. */
export const configHook =
  (directory: string): NonNullable<Hooks["config"]> =>
  async (config) => {
    config.command = { ...(await commandsFor(directory).catch(() => COMMANDS)), ...(config.command ?? {}) }
    config.agent = {
      [REVIEW_AGENT]: {
        ...REVIEWER,
        tools: { ...REVIEWER.tools },
        permission: { ...REVIEWER.permission, bash: { ...REVIEWER.permission.bash } },
      },
      ...(config.agent ?? {}),
    }
  }
