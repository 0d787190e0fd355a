// The guard's reading of the loop's changes since its start (one unified diff): tests skipped or
// focused, tests removed, check configs changed, suppressions added — and changed expectations,
// which are listed, not refused. An added line that was only moved (the same text removed elsewhere
// in the diff) is nothing new, and a test whose name is defined again elsewhere was moved or its
// file renamed, not removed. One pass over the diff's lines, then one over the tests it removed. Pure.
import { checkFile, isStrictnessLine, sectionAt, sectionHeader, type CheckFile } from "./check-files.js"
import { parseDiff, pathOf, type DiffLine, type FileDiff, type Hunk } from "./diff.js"
import type { Finding } from "./finding.js"
import { isTestFile, languageOf, type Language } from "./files.js"
import { skipMarker, suppression } from "./markers.js"
import { isRustBetween, isRustTestAttribute, rustFnName, testNameIn } from "./test-names.js"

/** Whole texts of files before and after, for the sections of pyproject.toml and setup.cfg a hunk starts in. */
export type FileTexts = ReadonlyMap<string, { before?: string | undefined; after?: string | undefined }>

/** The config files whose sections decide whether a change counts: give their texts to scanDiff. */
export const needsWholeText = (path: string): boolean => checkFile(path)?.scope === "sections"

interface TestDef {
  name: string
  file: string
  line: number
  text: string
}

/** What the scan gathers across files before it decides. */
interface Scan {
  findings: Finding[]
  /** Trimmed text of every removed line, counted: an added line with the same text was moved. */
  removed: Map<string, number>
  /** Added lines with a marker, decided once every removed line is known. */
  /** With the test a skip marker's line defines, if any: a test new in the diff, added skipped, was not running. */
  marked: { finding: Finding; defines?: string | undefined }[]
  removedTests: TestDef[]
  addedTests: Set<string>
}

const MAX_TEXT = 2_000

/** Lines joined, and cut to a bounded length (a whole rewritten config is no use in a prompt). */
function joined(lines: readonly DiffLine[]): string | null {
  if (lines.length === 0) return null
  const text = lines.map((l) => l.text).join("\n")
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}…`
}

/** The changed lines of a config file that count: all, those in the right sections, or the strictness options. */
function configLines(file: FileDiff, kind: CheckFile, texts: FileTexts | undefined): DiffLine[] {
  const changed = file.hunks.flatMap((h) => h.lines.filter((l) => l.kind !== " "))
  if (kind.scope === "whole") return changed
  if (kind.scope === "strictness") return changed.filter((l) => isStrictnessLine(l.text))
  const whole = texts?.get(pathOf(file))
  const counted: DiffLine[] = []
  for (const hunk of file.hunks) {
    // Each side's section where the hunk starts (from the whole text, when given), then its headers.
    let old: string | undefined = whole?.before !== undefined ? sectionAt(whole.before, hunk.oldStart) : undefined
    let now: string | undefined = whole?.after !== undefined ? sectionAt(whole.after, hunk.newStart) : undefined
    for (const line of hunk.lines) {
      const header = sectionHeader(line.text)
      if (header !== undefined) {
        if (line.kind !== "+") old = header
        if (line.kind !== "-") now = header
      }
      const section = line.kind === "+" ? now : old
      if (line.kind !== " " && section !== undefined && kind.sections(header ?? section)) counted.push(line)
    }
  }
  return counted
}

function scanConfig(file: FileDiff, scan: Scan, texts: FileTexts | undefined): void {
  const kind = checkFile(pathOf(file)) ?? (file.oldPath !== null ? checkFile(file.oldPath) : undefined)
  if (!kind) return
  // Renamed (`vitest.config.ts` → `vitest.config.ts.off`): the runner may no longer find it.
  if (file.oldPath !== null && file.newPath !== null && file.oldPath !== file.newPath) {
    const [before, after] = [file.oldPath, file.newPath]
    scan.findings.push({ kind: "check-config", file: file.oldPath, name: kind.what, before, after })
  }
  const lines = configLines(file, kind, texts)
  if (lines.length === 0 && !(kind.scope === "whole" && (file.oldPath === null || file.newPath === null))) return
  const line = lines.find((l) => l.kind === "+")?.line ?? lines[0]?.line
  const removed = lines.filter((l) => l.kind === "-")
  scan.findings.push({
    kind: "check-config",
    file: pathOf(file),
    name: kind.what,
    ...(line ? { line } : {}),
    before: file.oldPath === null ? null : (joined(removed) ?? (file.newPath === null ? "(the whole file)" : null)),
    after: file.newPath === null ? null : joined(lines.filter((l) => l.kind === "+")),
  })
}

/** Tests defined on one side of a hunk (`-` and context lines, or `+` and context lines), those whose lines changed. */
function testsOn(hunk: Hunk, side: "-" | "+", language: Language, testFile: boolean, file: string): TestDef[] {
  const defs: TestDef[] = []
  let attribute: DiffLine | undefined // Rust: the `#[test]` waiting for its `fn`
  for (const line of hunk.lines) {
    if (line.kind !== " " && line.kind !== side) continue
    const touched = line.kind === side
    if (language === "rs") {
      if (isRustTestAttribute(line.text)) attribute = line
      else if (attribute) {
        const name = rustFnName(line.text)
        if (name && (touched || attribute.kind === side)) defs.push({ name, file, line: line.line, text: line.text })
        if (name || !isRustBetween(line.text)) attribute = undefined
      }
      continue
    }
    const name = touched ? testNameIn(line.text, language, testFile) : undefined
    if (name) defs.push({ name, file, line: line.line, text: line.text })
  }
  return defs
}

const starts = (line: string, ...prefixes: string[]): boolean => prefixes.some((p) => line.startsWith(p))

/** A line holding an expectation: `expect(…)`, `assert …`, `assert_eq!(…)`, `self.assertEqual(…)`, `want :=`. */
function isExpectation(text: string, language: Language): boolean {
  const line = text.trim()
  switch (language) {
    case "js":
      return line.includes("expect(") || starts(line, "assert", "t.is(", "t.deepEqual(")
    case "py":
      return starts(line, "assert ", "self.assert", "assert_")
    case "go":
      return starts(line, "want ", "want:", "expected ", "assert.", "require.")
    case "rs":
      return line.startsWith("assert")
  }
}

/** Expectations changed or removed in each run of `-`/`+` lines of a test file's hunk (not those moved unchanged). */
function scanExpectations(file: string, hunk: Hunk, language: Language, scan: Scan, removedTest: boolean): void {
  let name: string | undefined = hunk.context || undefined
  let block: DiffLine[] = []
  const flush = () => {
    const removed = block.filter((l) => l.kind === "-" && isExpectation(l.text, language))
    const added = block.filter((l) => l.kind === "+" && isExpectation(l.text, language))
    block = []
    const same = (a: DiffLine, b: DiffLine) => a.text.trim() === b.text.trim()
    const gone = removed.filter((r) => !added.some((a) => same(a, r)))
    const come = added.filter((a) => !removed.some((r) => same(a, r)))
    gone.forEach((before, i) => {
      const after = come[i]
      if (!after && removedTest) return // a removed test's expectations go with it
      const line = after?.line ?? before.line
      const change = { line, before: before.text, after: after?.text ?? null }
      scan.findings.push({ kind: "expectation", file, ...(name ? { name } : {}), ...change })
    })
  }
  for (const line of hunk.lines) {
    const test = testNameIn(line.text, language, true)
    if (line.kind === " ") {
      flush()
      if (test) name = test
    } else {
      if (test) name = test
      block.push(line)
    }
  }
  flush()
}

const isDecoration = (text: string): boolean => {
  const line = text.trim()
  return line === "" || line.startsWith("@") || line.startsWith("#") || line.startsWith("//")
}

/**
 * The test an added skip marker marks, when that test is added too (so it is new): on the marker's
 * own line (JS), on the added line after its decorators (`@pytest.mark.skip`, `#[ignore]`), or the
 * added `func Test…` that the `t.Skip(` is in (Go). Undefined when the test was there before.
 */
function testMarked(lines: readonly DiffLine[], at: number, language: Language, testFile: boolean): string | undefined {
  if (language === "js") return testNameIn(lines[at]!.text, language, testFile)
  if (language === "go") {
    for (let i = at; i >= 0 && lines[i]!.kind === "+"; i -= 1) {
      if (lines[i]!.text.startsWith("func ")) return testNameIn(lines[i]!.text, language, testFile)
    }
    return undefined
  }
  let next = at + 1
  while (next < lines.length && lines[next]!.kind === "+" && isDecoration(lines[next]!.text)) next += 1
  const line = lines[next]
  if (line?.kind !== "+") return undefined
  return language === "py" ? testNameIn(line.text, language, testFile) : rustFnName(line.text)
}

const isFocus = (marker: string): boolean => marker.endsWith(".only") || marker === "fit" || marker === "fdescribe"

function scanCode(file: FileDiff, scan: Scan): void {
  const path = pathOf(file)
  const language = languageOf(path)
  if (!language) return
  const testFile = isTestFile(path)
  for (const hunk of file.hunks) {
    const removed = testsOn(hunk, "-", language, testFile, file.oldPath ?? path)
    for (const def of testsOn(hunk, "+", language, testFile, path)) scan.addedTests.add(`${language} ${def.name}`)
    scan.removedTests.push(...removed.map((d) => ({ ...d, name: `${language} ${d.name}` })))
    for (const [index, line] of hunk.lines.entries()) {
      if (line.kind === "-") scan.removed.set(line.text.trim(), (scan.removed.get(line.text.trim()) ?? 0) + 1)
      if (line.kind !== "+") continue
      const marker = skipMarker(line.text, language, testFile)
      const added = { file: path, line: line.line, before: null, after: line.text }
      if (marker) {
        // A focus (`.only`, `fit`) stops the other tests whatever it marks; a skip only the test it marks.
        const name = isFocus(marker) ? undefined : testMarked(hunk.lines, index, language, testFile)
        scan.marked.push({ finding: { kind: "skip", name: marker, ...added }, defines: name && `${language} ${name}` })
      }
      const suppressed = suppression(line.text)
      if (suppressed) scan.marked.push({ finding: { kind: "suppression", name: suppressed, ...added } })
    }
    if (testFile && file.newPath !== null) scanExpectations(path, hunk, language, scan, removed.length > 0)
  }
}

/** What the guard finds in a unified diff of the loop's changes since its start checkpoint. */
export function scanDiff(diff: string, texts?: FileTexts): Finding[] {
  return scanFiles(parseDiff(diff), texts)
}

export function scanFiles(files: readonly FileDiff[], texts?: FileTexts): Finding[] {
  const scan: Scan = { findings: [], removed: new Map(), marked: [], removedTests: [], addedTests: new Set() }
  for (const file of files) {
    if (file.binary) continue
    scanConfig(file, scan, texts)
    scanCode(file, scan)
  }
  // An added marker whose line was only moved (removed elsewhere in the diff, same text) is not new;
  // nor is a test that is new in the diff and added skipped (`test.todo("later")`): it never ran.
  const removedNames = new Set(scan.removedTests.map((def) => def.name))
  for (const { finding, defines } of scan.marked) {
    const key = (finding.after ?? "").trim()
    const moved = scan.removed.get(key) ?? 0
    if (moved > 0) scan.removed.set(key, moved - 1)
    else if (!defines || removedNames.has(defines)) scan.findings.push(finding)
  }
  for (const def of scan.removedTests) {
    if (scan.addedTests.has(def.name)) continue
    const name = def.name.slice(def.name.indexOf(" ") + 1)
    scan.findings.push({ kind: "removed-test", file: def.file, name, line: def.line, before: def.text, after: null })
  }
  return scan.findings
}
