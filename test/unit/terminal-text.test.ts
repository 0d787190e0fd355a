// terminalText: what the CLI prints from files cannot command the terminal; the rest is untouched.
import { describe, expect, it } from "vitest"
import { terminalText } from "../../src/cli/terminal-text.js"

describe("terminalText", () => {
  it("shows ESC, BEL, CR, backspace, NUL, DEL and the C1 controls as their escapes", () => {
    expect(terminalText("a\x1b]0;title\x07b")).toBe("a\\u001b]0;title\\u0007b")
    expect(terminalText("\x1b[2J\x1b[H")).toBe("\\u001b[2J\\u001b[H")
    expect(terminalText("done\rFAIL")).toBe("done\\u000dFAIL")
    expect(terminalText("x\b\0\x7f")).toBe("x\\u0008\\u0000\\u007f")
    expect(terminalText("\u009b31m\u009d0;t\u009c\u0080")).toBe("\\u009b31m\\u009d0;t\\u009c\\u0080")
  })

  it("keeps newline, tab and every printable character, ASCII or not", () => {
    const text = "● US-1 · ✓ done\n\tnext: Größe — 日本語 🙂 \\u001b stays as typed ~\u00a0\u00ff"
    expect(terminalText(text)).toBe(text)
  })

  it("JSON output stays JSON with the same values: the escapes are JSON's own", () => {
    const value = { task: "a\x1b[31m\u009b\x7fb\n", list: ["\u0085"] }
    expect(JSON.parse(terminalText(JSON.stringify(value, null, 2)))).toEqual(value)
  })
})
