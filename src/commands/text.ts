import type { Part } from "@opencode-ai/sdk"

/** Rewrites a command's text in place (OpenCode keeps the array it passed to the hook). */
export function replaceText(parts: Part[], text: string): void {
  const first = parts.find((p) => p.type === "text")
  if (first && first.type === "text") first.text = text
}
