// /ralph-remember <text> and /ralph-memory [clear]: the project memory, read and changed by the
// plugin at once. Like the control commands, their own turn only shows the result.
import type { Part } from "@opencode-ai/sdk"
import type { RalphContext } from "../engine/context.js"
import { memoryAct } from "../acts/memory.js"
import { MEMORY_FILE } from "../project/own-files.js"
import { CONTROL_MARKER, type MemoryCommand } from "../host/commands.js"
import { replaceText } from "./text.js"

export async function runMemoryCommand(
  ctx: RalphContext,
  command: MemoryCommand,
  args: string,
  parts: Part[],
): Promise<void> {
  let title: string
  let message: string
  try {
    ;({ title, message } = await memoryAct(ctx, command, args.trim()))
  } catch (error) {
    title = "Ralph · memory not changed"
    message = `${MEMORY_FILE} could not be read or written: ${String(error)}`
  }
  ctx.api.toast("info", title, message.split("\n").slice(0, 3).join("\n"))
  replaceText(
    parts,
    `${CONTROL_MARKER} /${command}\n\n${message}\n\n(This message is for the user; the Ralph loop plugin already ` +
      `did it. Reply with just "OK".)`,
  )
}
