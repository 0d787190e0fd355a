// The tests a diff's lines define, by name: `def test_…` (Python), `test("…")`/`it("…")` and their
// skipped or focused forms (JS/TS), `func Test…` (Go), a `fn` under `#[test]` (Rust). Read from the
// line's start with a bounded look, never a pattern that backtracks. Pure.
import type { Language } from "./files.js"

const isName = (c: string | undefined): boolean => c !== undefined && /\w/.test(c)

/** The name that `prefix` begins (`def test` + `_adds(` → `test_adds`), when a `(` (or `<`) follows it. */
function nameAfter(text: string, prefix: string, kept: string): string | undefined {
  if (!text.startsWith(prefix)) return undefined
  let end = prefix.length
  while (end < text.length && isName(text[end])) end += 1
  const name = kept + text.slice(prefix.length, end)
  return name.length > 0 && (text[end] === "(" || text[end] === "<") ? name : undefined
}

const JS_SUBJECTS = new Set(["test", "it", "xit", "xtest", "fit"])
const JS_MODIFIERS = new Set(["skip", "only", "todo", "concurrent", "failing", "sequential"])

/** `test("name", …)`, `it.skip('name', …)`, `test.concurrent.only(\`name\`, …)`: the name. */
function jsTestName(text: string): string | undefined {
  let end = 0
  while (end < text.length && end < 64 && (isName(text[end]) || text[end] === ".")) end += 1
  const [subject, ...modifiers] = text.slice(0, end).split(".")
  const isTest = subject !== undefined && JS_SUBJECTS.has(subject) && modifiers.every((m) => JS_MODIFIERS.has(m))
  if (!isTest || text[end] !== "(") return undefined
  let start = end + 1
  while (text[start] === " ") start += 1
  const quote = text[start]
  if (quote !== '"' && quote !== "'" && quote !== "`") return undefined
  for (let i = start + 1; i < text.length; i += 1) {
    if (text[i] === "\\") i += 1
    else if (text[i] === quote) return text.slice(start + 1, i)
  }
  return undefined
}

/** The test a line of a test file defines on its own (JS, Python, Go); Rust's need their attribute first. */
export function testNameIn(text: string, language: Language, testFile: boolean): string | undefined {
  const line = text.trim()
  switch (language) {
    case "js":
      return testFile ? jsTestName(line) : undefined
    case "py":
      return testFile ? (nameAfter(line, "def test", "test") ?? nameAfter(line, "async def test", "test")) : undefined
    case "go":
      return testFile ? nameAfter(line, "func Test", "Test") : undefined
    case "rs":
      return undefined
  }
}

/** `#[test]`, `#[tokio::test]`, `#[async_std::test(…)]`: the line makes the next `fn` a test. */
export function isRustTestAttribute(text: string): boolean {
  const line = text.trim()
  return line === "#[test]" || (line.startsWith("#[") && (line.includes("::test]") || line.includes("::test(")))
}

/** A line that may stand between a test attribute and its `fn`: another attribute, a comment, a blank. */
export const isRustBetween = (text: string): boolean => {
  const line = text.trim()
  return line === "" || line.startsWith("#[") || line.startsWith("//")
}

/** `fn name(`, `pub fn name(`, `async fn name(`: the function's name. */
export function rustFnName(text: string): string | undefined {
  let line = text.trim()
  for (const word of ["pub ", "async ", "unsafe "]) if (line.startsWith(word)) line = line.slice(word.length)
  return nameAfter(line, "fn ", "")
}
