// The house rules of issue 38 that no linter checks: short files, short functions, short lines, and a
// map (docs/development.md plus a README.md per folder) that names every top-level folder of src/ and
// nothing that is gone.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import ts from "typescript"
import { describe, expect, test } from "vitest"
import { packageDir } from "../harness/harness.js"

const MAX_FILE_LINES = 300
const MAX_FUNCTION_LINES = 80
const MAX_LINE_CHARS = 120

const root = packageDir()
const src = join(root, "src")

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text: string): number {
  const lines = text.split("\n").length
  return text.endsWith("\n") ? lines - 1 : lines
}

type FunctionNode = ts.FunctionDeclaration | ts.MethodDeclaration | ts.ArrowFunction | ts.FunctionExpression

const isFunction = (node: ts.Node): node is FunctionNode =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node)

/** The name a reader would search for: the function's own, or the variable or property it is assigned to. */
function nameOf(node: FunctionNode, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file)
  const parent = node.parent
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(file)
  return "(anonymous)"
}

/** Every function in `path` whose body spans more than MAX_FUNCTION_LINES lines, as "file:line name (N lines)". */
function longFunctions(path: string, text = readFileSync(path, "utf8")): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.body.getStart(file)).line
      const last = file.getLineAndCharacterOfPosition(node.body.getEnd()).line
      const lines = last - first + 1
      if (lines > MAX_FUNCTION_LINES) {
        found.push(`${relative(root, path)}:${first + 1} ${nameOf(node, file)} (${lines} lines)`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

const topFolders = (): string[] =>
  readdirSync(src, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()

/** The paths docs/development.md's map names at the start of its lines (`src/loop/`, `src/index.ts`, `test/unit/`). */
function mapPaths(): string[] {
  const doc = readFileSync(join(root, "docs/development.md"), "utf8")
  const map = doc.split("```")[1] ?? ""
  return map
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter((word) => /^(src|test|bench|demo)\//.test(word))
}

describe("the house rules (issue 38)", () => {
  test(`no file in src/ is over ${MAX_FILE_LINES} lines`, () => {
    const over = sourceFiles(src)
      .map((path) => ({ path: relative(root, path), lines: lineCount(readFileSync(path, "utf8")) }))
      .filter((file) => file.lines > MAX_FILE_LINES)
      .map((file) => `${file.path} (${file.lines} lines)`)
    expect(over).toEqual([])
  })

  test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(sourceFiles(src).flatMap((path) => longFunctions(path))).toEqual([])
  })

  test(`no line in src/ is over ${MAX_LINE_CHARS} characters`, () => {
    const over = sourceFiles(src).flatMap((path) =>
      readFileSync(path, "utf8")
        .split("\n")
        .flatMap((line, i) =>
          line.length > MAX_LINE_CHARS ? [`${relative(root, path)}:${i + 1} (${line.length} characters)`] : [],
        ),
    )
    expect(over).toEqual([])
  })

  test("every top-level folder of src/ has a README.md", () => {
    expect(topFolders().filter((folder) => !existsSync(join(src, folder, "README.md")))).toEqual([])
  })

  test("docs/development.md's map has an entry for every top-level folder of src/", () => {
    const named = new Set(mapPaths())
    expect(topFolders().filter((folder) => !named.has(`src/${folder}/`))).toEqual([])
  })

  test("docs/development.md's map names nothing that does not exist", () => {
    const gone = mapPaths().filter((path) => {
      const full = join(root, path)
      if (!existsSync(full)) return true
      return path.endsWith("/") !== statSync(full).isDirectory()
    })
    expect(gone).toEqual([])
  })

  // The checks above must see something: a tree or a map they cannot read would pass them all.
  test("the checks read the tree and the map, and measure a function's body", () => {
    expect(sourceFiles(src).length).toBeGreaterThan(100)
    expect(mapPaths()).toContain("src/loop/")
    const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  step(${i})`).join("\n")
    const text = [
      `function fits() {\n${body(80)}\n}`,
      `const tooLong = () => {\n${body(81)}\n}`,
      `class A {\n  method() {\n${body(81)}\n  }\n}`,
    ].join("\n")
    expect(longFunctions(join(src, "probe.ts"), text)).toEqual([
      "src/probe.ts:81 tooLong (81 lines)",
      "src/probe.ts:163 method (81 lines)",
    ])
  })
})
