// `<remember>text</remember>` and `<remember priority>text</remember>` in the model's own text
// (seed 003's notepad). Tags shown as code — in a fenced block, in backticks, or quoted with `>` —
// are examples, not requests, and do not count.
import type { MemorySection } from "./memory-file.js"

export interface RememberRequest {
  section: Exclude<MemorySection, "staging">
  text: string
}

const TAG = /<remember(\s+priority)?\s*>([\s\S]*?)<\/remember\s*>/gi

export function rememberRequests(text: string): RememberRequest[] {
  if (!/<remember/i.test(text)) return []
  const prose = text
    .replace(/^\s*(```|~~~)[\s\S]*?^\s*\1[^\n]*$/gm, "")
    .replace(/`[^`\n]*`/g, "")
    .replace(/^\s*>.*$/gm, "")
  return [...prose.matchAll(TAG)].map((m) => ({ section: m[1] ? ("priority" as const) : ("working" as const), text: m[2]!.trim() })).filter((r) => r.text !== "")
}
