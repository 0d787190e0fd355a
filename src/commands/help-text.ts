// /ralph-help: the commands and where things are (also the TUI's help dialog).
import { DEFAULT_SETTINGS } from "../config/schema.js"
import { SETTINGS_FILES } from "../config/load.js"
import { MEMORY_FILE, OPENCODE_DIR, STATE_DIR } from "../project/own-files.js"
import { RALPH_FLAGS } from "./ralph-args.js"

export function helpText(): string {
  return [
    "Ralph loop — give a task once; the agent keeps going until it writes the promise.",
    "",
    "/ralph <task> [flags]   start a loop in this session (put the task after -- if it contains --words);",
    '                        typing "ralph: <task> [flags]" does the same (the keyword; see keywords)',
    "/ralph-status           show the loop (or how it ended) and the project's loops",
    "/ralph-pause            pause it (nothing is sent)      /ralph-resume   go on now",
    "/ralph-hint <text>      add a hint to the next prompt, once",
    "/ralph-accept [KEY]     accept what refused the last claim of done (status names the keys)",
    "/ralph-rollback [N]     put the work tree back to checkpoint N (default: the iteration before the last; " +
      "--to-start)",
    "/cancel-ralph           end it now (without a loop: stop this session's continuations)",
    "/ralph-plan <task>      ask the model to write a plan of user stories to .opencode/prd.json (setting prdPath)",
    "/ralph --prd [PATH] [task]   work through a plan, one story per iteration; the plugin marks a story done " +
      "when its checks pass",
    "/ralph-remember <text>  remember it for every loop of this project (Priority in the memory file)",
    "/ralph-memory [clear]   show the project memory, or empty its working memory (Priority and Manual stay)",
    "",
    `Flags: ${Object.keys(RALPH_FLAGS).join(", ")} (as --flag value or --flag=value)`,
    `Settings: ${OPENCODE_DIR}/${SETTINGS_FILES[0]} (project), ~/.config/opencode/${SETTINGS_FILES[0]} (global), ` +
      `or plugin options.`,
    `Files: ${DEFAULT_SETTINGS.summaryPath}<session>/ralph_summary.md (handoffs), ${STATE_DIR}/ (loop state), ` +
      `${MEMORY_FILE} (project memory).`,
  ].join("\n")
}
