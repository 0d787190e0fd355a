// Changed expectations (issue 46): a test of the start that fails on the replay tree, whose own
// definition the loop changed (its body at the end differs from the start's) — "toBe(3)" became
// "toBe(0)". Sometimes the task asks for exactly that ("change the greeting to Hi"), so such a
// failure is named with both versions rather than taken as a cheat. Pure; linear in the texts.
import { languageOf } from "../evidence/files.js"
import { isRustBetween, isRustTestAttribute, rustFnName, testNameIn } from "../evidence/test-names.js"
import { skipMarker } from "../evidence/markers.js"

export interface ChangedExpectation {
  /** The test file, in the project. */
  file: string
  /** The test's name as its definition gives it. */
  name: string
  /** The first line of its body that differs, at the start and at the end (trimmed). */
  start: string
  end: string
  /** The failure identity, when it names no file (mocha's `suite > name`, go's `pkg TestName`): found by name. */
  failure?: string
}

/** The file and the test name of a failure identity (`a.test.ts > suite > name`, `tests/a.py::test_x`). */
function testOfFailure(failure: string): { file: string; name: string } | undefined {
  for (const separator of [" > ", "::"]) {
    const first = failure.indexOf(separator)
    if (first <= 0) continue
    const last = failure.lastIndexOf(separator)
    const name =
      failure
        .slice(last + separator.length)
        .split("[")[0]
        ?.trim() ?? ""
    if (name !== "") return { file: failure.slice(0, first), name }
  }
  return undefined
}

const indentOf = (line: string): number => line.length - line.trimStart().length

/**
 * The decorators above a definition (`@pytest.mark.parametrize(...)`, over several lines too): its
 * table of cases is part of what it expects.
 */
function decoratorsAbove(lines: readonly string[], at: number, indent: number): string[] {
  let first = at
  while (first > 0) {
    const line = lines[first - 1] ?? ""
    const text = line.trim()
    const continues = indentOf(line) > indent || text.startsWith(")") || text.startsWith("]")
    if (text === "" || !(text.startsWith("@") || continues)) break
    first -= 1
  }
  return lines.slice(first, at).map((line) => line.trim())
}

/** The line of Rust's `fn name(` that a test attribute (`#[test]`, `#[tokio::test]`) makes a test; -1: none. */
function rustTestAt(lines: readonly string[], name: string): number {
  for (let i = 0; i < lines.length; i += 1) {
    if (rustFnName(lines[i] ?? "") !== name) continue
    let above = i - 1
    while (above >= 0 && isRustBetween(lines[above] ?? "") && !isRustTestAttribute(lines[above] ?? "")) above -= 1
    if (above >= 0 && isRustTestAttribute(lines[above] ?? "")) return i
  }
  return -1
}

/** The lines of a test's definition: from the line that names it to the first line indented as little after it. */
export function testBody(text: string, file: string, name: string): string[] | undefined {
  const language = languageOf(file)
  if (language === undefined) return undefined
  const lines = text.split("\n")
  const at =
    language === "rs" ? rustTestAt(lines, name) : lines.findIndex((line) => testNameIn(line, language, true) === name)
  if (at < 0) return undefined
  const indent = indentOf(lines[at] ?? "")
  const body = [...decoratorsAbove(lines, at, indent), (lines[at] ?? "").trim()]
  for (let i = at + 1; i < lines.length; i += 1) {
    const line = lines[i] ?? ""
    if (line.trim() === "") continue
    if (indentOf(line) <= indent) {
      // A JS test's closing `})` belongs to it; Python's next statement does not.
      if (language !== "py" && line.trim().startsWith("}")) body.push(line.trim())
      break
    }
    body.push(line.trim())
  }
  return body
}

/** The first differing line of two bodies, preferring one that asserts. */
function firstDifference(start: readonly string[], end: readonly string[]): { start: string; end: string } {
  const pairs: { start: string; end: string }[] = []
  for (let i = 0; i < Math.max(start.length, end.length); i += 1)
    if (start[i] !== end[i]) pairs.push({ start: start[i] ?? "", end: end[i] ?? "" })
  const asserts = (text: string) => text.includes("expect") || text.includes("assert") || text.includes("Equal")
  return pairs.find((p) => asserts(p.start) || asserts(p.end)) ?? pairs[0] ?? { start: "", end: "" }
}

/**
 * The test is defined as it was — what changed is what it expects. A definition made to skip, fail or
 * be a todo (`test.skip(`, `test.failing(`, `{ todo: true }`, `@pytest.mark.xfail`) is no expectation
 * changed: it stops the test from judging at all.
 */
function sameDefinition(before: readonly string[], after: readonly string[], file: string): boolean {
  const language = languageOf(file)
  if (language === undefined) return false
  const definition = (body: readonly string[]) => body.find((line) => testNameIn(line, language, true) !== undefined)
  if (definition(before) !== definition(after)) return false
  const marked = (body: readonly string[]) =>
    body.filter((line) => skipMarker(line, language, true) !== undefined).length
  return marked(after) <= marked(before)
}

export interface ExpectationInput {
  /** The failure identities of the replay's checks. */
  failures: readonly string[]
  /** A test file's text at the start and at the end (undefined: none there). */
  texts: (file: string) => { start: string | undefined; end: string | undefined }
  /** The files the replay put back: where a test is looked for by name when its failure names no file. */
  candidates?: readonly string[]
}

/** The name a failure identity ends with: after its last ` > `, `::` or space (`calc > adds`, `calc TestAdd`). */
function nameOfFailure(failure: string): string {
  const tail = failure.split("[")[0] ?? failure
  const cut = Math.max(tail.lastIndexOf(" > ") + 3, tail.lastIndexOf("::") + 2, tail.lastIndexOf(" ") + 1)
  return tail.slice(cut).trim()
}

/** The one put-back file that defines the failure's test at the start (none, or several: undefined). */
function byName(failure: string, input: ExpectationInput): { file: string; name: string } | undefined {
  const name = nameOfFailure(failure)
  if (name === "") return undefined
  const files = (input.candidates ?? []).filter((file) => {
    const start = input.texts(file).start
    return start !== undefined && testBody(start, file, name) !== undefined
  })
  return files.length === 1 && files[0] !== undefined ? { file: files[0], name } : undefined
}

/** The test a failure names: its file and name, or, when it names no file the start had, found by name. */
function testOf(failure: string, input: ExpectationInput): { file: string; name: string; byName: boolean } | undefined {
  const named = testOfFailure(failure)
  if (named && input.texts(named.file).start !== undefined) return { ...named, byName: false }
  const found = byName(failure, input)
  return found && { ...found, byName: true }
}

/** The failing tests whose definitions the loop changed, each once. */
export function changedExpectations(input: ExpectationInput): ChangedExpectation[] {
  const { failures, texts } = input
  const found = new Map<string, ChangedExpectation>()
  for (const failure of failures) {
    const located = testOf(failure, input)
    if (!located) continue
    const test = { file: located.file, name: located.name }
    const { start, end } = texts(test.file)
    if (start === undefined || end === undefined) continue
    const [before, after] = [testBody(start, test.file, test.name), testBody(end, test.file, test.name)]
    if (!before || !after || before.join("\n") === after.join("\n")) continue
    if (!sameDefinition(before, after, test.file)) continue
    found.set(`${test.file}::${test.name}`, {
      ...test,
      ...firstDifference(before, after),
      ...(located.byName ? { failure } : {}),
    })
  }
  return [...found.values()]
}
