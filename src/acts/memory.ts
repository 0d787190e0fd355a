// The project memory as a person changes it: /ralph-remember, /ralph-memory [clear], and the control
// channel's remember and forget.
import { featureOn } from "../config/features.js"
import type { RalphContext } from "../engine/context.js"
import type { MemoryCommand } from "../host/commands.js"
import {
  clearWorking,
  entries,
  forget,
  isoDate,
  manualText,
  remember,
  type Forgetting,
  type MemoryFile,
} from "../memory/memory-file.js"
import { MEMORY_FILE } from "../project/own-files.js"

/** /ralph-remember and the control channel's remember: `text` under Priority. `done` false: nothing was written. */
export async function rememberEntry(
  ctx: RalphContext,
  text: string,
): Promise<{ done: boolean; title: string; message: string }> {
  if (!featureOn(ctx.settings.current, "remember"))
    return {
      done: false,
      title: "Ralph · nothing remembered",
      message: 'Memory writes are switched off ("remember" is in disabledFeatures).',
    }
  if (!text)
    return {
      done: false,
      title: "Ralph · nothing remembered",
      message: "Usage: /ralph-remember <text> — kept under Priority in the project memory.",
    }
  await ctx.memory.update((m) =>
    remember(
      m,
      "priority",
      { text, source: "command", date: isoDate(ctx.now()) },
      ctx.settings.current.memoryMaxEntries,
    ),
  )
  return {
    done: true,
    title: "Ralph · remembered",
    message: `Every loop in this project will be given (under Priority in ${MEMORY_FILE}): ${text}`,
  }
}

/** The control channel's forget: the entry whose text is `text` (or the one that contains it) leaves the memory. */
export async function forgetEntry(
  ctx: RalphContext,
  text: string,
): Promise<{ done: boolean; title: string; message: string }> {
  if (!text)
    return {
      done: false,
      title: "Ralph · nothing forgotten",
      message: "Forget needs the text of the entry (or a part of it only that entry has).",
    }
  let result: Forgetting | undefined
  await ctx.memory.update((m) => {
    result = forget(m, text)
    return result.memory
  })
  const { removed = [], candidates = [] } = result ?? {}
  if (removed.length)
    return {
      done: true,
      title: "Ralph · forgotten",
      message: `Taken out of ${MEMORY_FILE}: ${removed.map((e) => e.text).join(" | ")}`,
    }
  if (candidates.length)
    return {
      done: false,
      title: "Ralph · nothing forgotten",
      message:
        `"${text}" is part of ${candidates.length} entries; give one's ` +
        `whole text:\n${candidates.map((e) => `- ${e.text}`).join("\n")}`,
    }
  return { done: false, title: "Ralph · nothing forgotten", message: `No entry of ${MEMORY_FILE} holds "${text}".` }
}

export async function memoryAct(
  ctx: RalphContext,
  command: MemoryCommand,
  args: string,
): Promise<{ title: string; message: string }> {
  if (command === "ralph-remember") return rememberEntry(ctx, args)
  if (args === "clear") {
    const after = await ctx.memory.update(clearWorking)
    return {
      title: "Ralph · working memory cleared",
      message:
        `The working memory of ${MEMORY_FILE} is empty now. The Priority entries ` +
        `(${entries(after, "priority").length}) and the Manual section are kept as they were.`,
    }
  }
  if (args)
    return {
      title: "Ralph · memory",
      message: `Unknown argument "${args}". Usage: /ralph-memory (show) or /ralph-memory clear.`,
    }
  return { title: "Ralph · memory", message: showMemory(await ctx.memory.read()) }
}

function showMemory(memory: MemoryFile): string {
  const priority = entries(memory, "priority")
  const working = entries(memory, "working")
  const staging = entries(memory, "staging")
  const chars = (list: typeof working) => list.reduce((sum, e) => sum + e.text.length, 0)
  const line = (e: (typeof working)[number]) =>
    `- ${e.date ?? "hand-written"} · ${e.source}${e.count > 1 ? ` ×${e.count}` : ""} · ${e.text}`
  return [
    `Project memory: ${MEMORY_FILE}`,
    `Priority: ${priority.length} entr${priority.length === 1 ? "y" : "ies"} (${chars(priority)} characters) — ` +
      `given to every loop`,
    ...priority.map(line),
    `Working memory: ${working.length} entr${working.length === 1 ? "y" : "ies"} (${chars(working)} characters) ` +
      `— the relevant ones given to each loop`,
    ...working.slice(-20).map(line),
    ...(working.length > 20 ? [`(… ${working.length - 20} older ones in the file)`] : []),
    ...(staging.length
      ? [
          `Staging: ${staging.length} note${staging.length === 1 ? "" : "s"} of loops — kept when a loop ` +
            `completes, marked unverified when it does not; given to no loop`,
          ...staging.map(line),
        ]
      : []),
    `Manual: ${(manualText(memory) ?? "").length} characters (yours; never changed by the plugin)`,
  ].join("\n")
}
