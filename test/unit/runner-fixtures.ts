// The real tools' outputs in test/fixtures/runners/ (made by scripts/make-runner-fixtures.mjs), what
// each fault of the fixture projects is called by each tool, and the check results they make.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { CheckKind } from "../../src/config/schema.js"
import {
  parseCheckOutput,
  snapshotOf,
  type CheckResult,
  type DiagnosticSnapshot,
} from "../../src/checks/diagnostics.js"

export const FIXTURES = fileURLToPath(new URL("../fixtures/runners/", import.meta.url))

export interface Run {
  file: string
  scenario: "same" | "fixed" | "different" | "broken" | "pass" | "skipped" | "removed"
  step: number
  faults: string[]
  directory: string
  exitCode: number
}

export const runsOf = (tool: string): Run[] =>
  (JSON.parse(readFileSync(join(FIXTURES, tool, "runs.json"), "utf8")) as { runs: Run[] }).runs
export const outputOf = (tool: string, file: string) => readFileSync(join(FIXTURES, tool, file), "utf8")

// What each fault of the fixture projects is called by each tool (scripts/runner-fixtures/: A–C in
// one test file or several source files, D in another file, E a file that does not load or parse).
const PYTEST = {
  A: ["test_calc.py::test_adds_small_numbers"],
  B: ["test_calc.py::test_adds_negative_numbers"],
  C: ["test_calc.py::TestMultiply::test_multiplies[3-4-7]"],
  D: ["test_format.py::test_formats_a_total"],
}
const JS_TESTS = {
  A: ["test/calc.test.js > calc > adds small numbers"],
  B: ["test/calc.test.js > calc > adds negative numbers"],
  C: ["test/calc.test.js > calc > multiply > multiplies"],
  D: ["test/format.test.js > formats a total"],
  E: ["test/format.test.js"],
}
const GO = {
  A: ["example.com/calc TestAddSmallNumbers"],
  B: ["example.com/calc TestAddNegativeNumbers"],
  C: ["example.com/calc TestMultiply/by_four"],
  D: ["example.com/calc/format TestTotal"],
  E: ["calc_test.go go: undefined: missing", "example.com/calc"],
}
const TSC = {
  A: ["src/a.ts TS2322: Type 'string' is not assignable to type 'number'"],
  B: ["src/b.ts TS2322: Type 'number' is not assignable to type 'string'"],
  C: ["src/c.ts TS2554: Expected # arguments, but got #"],
  D: ["src/d.ts TS2304: Cannot find name 'missing'"],
  E: ["src/e.ts TS1005: ')' expected", "src/e.ts TS1109: Expression expected"],
}
const ESLINT = {
  A: [
    "src/a.js no-unused-vars: 'unused' is assigned a value but never used",
    "src/a.js prefer-const: 'start' is never reassigned. Use 'const' instead",
  ],
  B: ["src/b.js no-debugger: Unexpected 'debugger' statement"],
  C: ["src/c.js no-undef: 'log' is not defined"],
  D: ["src/d.js no-dupe-keys: Duplicate key 'size'"],
  E: ["src/e.js error: Parsing error: Unexpected token"],
}
const RUFF = {
  A: ["a.py F401: `os` imported but unused"],
  B: ["b.py F841: Local variable `result` is assigned to but never used"],
  C: ["c.py F632: Use `==` to compare constant literals"],
  D: ["d.py F821: Undefined name `missing`"],
  E: [
    "e.py invalid-syntax: Expected `)`, found newline",
    "e.py invalid-syntax: Expected a parameter or the end of the parameter list",
  ],
}

// The test runners' S (a test skipped) and R (a test removed, issue 39) fail nothing themselves.
const NOT_FAILURES = { S: [], R: [] }

export const TOOLS: Record<string, { kind: CheckKind; faults: Record<string, string[]> }> = {
  pytest: { kind: "test", faults: { ...NOT_FAILURES, ...PYTEST, E: ["test_format.py"] } },
  "pytest-q": { kind: "test", faults: { ...NOT_FAILURES, ...PYTEST, E: ["test_format.py"] } },
  "pytest-color": { kind: "test", faults: { ...NOT_FAILURES, ...PYTEST, E: ["test_format.py"] } },
  "pytest-v": { kind: "test", faults: { ...NOT_FAILURES, ...PYTEST, E: ["ERROR collecting test_format.py"] } },
  "pytest-rN": {
    kind: "test",
    faults: {
      ...NOT_FAILURES,
      A: ["test_adds_small_numbers"],
      B: ["test_adds_negative_numbers"],
      C: ["TestMultiply.test_multiplies[3-4-7]"],
      D: ["test_formats_a_total"],
      E: ["ERROR collecting test_format.py"],
    },
  },
  vitest: { kind: "test", faults: { ...JS_TESTS, ...NOT_FAILURES } },
  "vitest-color": { kind: "test", faults: { ...JS_TESTS, ...NOT_FAILURES } },
  jest: {
    kind: "test",
    faults: { ...NOT_FAILURES, ...JS_TESTS, E: ["test/format.test.js > Test suite failed to run"] },
  },
  "node-test-tap": { kind: "test", faults: { ...JS_TESTS, ...NOT_FAILURES } },
  // The spec reporter names a failing test by its own name and file, not its suites.
  "node-test-spec": {
    kind: "test",
    faults: {
      ...NOT_FAILURES,
      A: ["test/calc.test.js > adds small numbers"],
      B: ["test/calc.test.js > adds negative numbers"],
      C: ["test/calc.test.js > multiplies"],
      D: ["test/format.test.js > formats a total"],
      E: ["test/format.test.js"],
    },
  },
  // Mocha names no file; a file that does not load makes it print an exception only (identified whole).
  mocha: {
    kind: "test",
    faults: {
      ...NOT_FAILURES,
      A: ["calc > adds small numbers"],
      B: ["calc > adds negative numbers"],
      C: ["calc > multiply > multiplies"],
      D: ["format > formats a total"],
    },
  },
  go: { kind: "test", faults: { ...GO, ...NOT_FAILURES } },
  "go-json": { kind: "test", faults: { ...GO, ...NOT_FAILURES } },
  "go-v": { kind: "test", faults: { ...GO, ...NOT_FAILURES } },
  cargo: {
    kind: "test",
    faults: {
      ...NOT_FAILURES,
      A: ["src/lib.rs > tests::adds_small_numbers"],
      B: ["src/lib.rs > tests::adds_negative_numbers"],
      C: ["src/lib.rs > tests::multiply::by_four"],
      D: ["tests/format.rs > formats_a_total"],
      E: ["src/lib.rs E0425: cannot find function `missing` in this scope"],
    },
  },
  tsc: { kind: "typecheck", faults: TSC },
  "tsc-pretty": { kind: "typecheck", faults: TSC },
  "eslint-stylish": { kind: "lint", faults: ESLINT },
  "eslint-unix": { kind: "lint", faults: ESLINT },
  "eslint-json": { kind: "lint", faults: ESLINT },
  ruff: { kind: "lint", faults: RUFF },
  "ruff-concise": { kind: "lint", faults: RUFF },
  mypy: {
    kind: "typecheck",
    faults: {
      A: ['a.py assignment: Incompatible types in assignment (expression has type "str", variable has type "int")'],
      B: ['b.py return-value: Incompatible return value type (got "int", expected "str")'],
      C: ['c.py call-arg: Too many arguments for "add_typed"'],
      D: ['d.py name-defined: Name "missing" is not defined'],
      E: ["e.py syntax: invalid syntax"],
    },
  },
}

/** The check result a run of the tool makes, as runCheck builds it. */
export function checkOf(tool: string, run: Run): CheckResult {
  const output = outputOf(tool, run.file)
  const { kind } = TOOLS[tool]!
  return {
    name: tool,
    kind,
    command: tool,
    status: run.exitCode === 0 ? "passed" : "failed",
    exitCode: run.exitCode,
    durationMs: 1,
    output,
    ...parseCheckOutput(kind, output, run.exitCode, run.directory),
  }
}

export function history(tool: string, files: string[]): DiagnosticSnapshot[] {
  const runs = runsOf(tool)
  return files.map((file, i) => snapshotOf(i + 1, i, [checkOf(tool, runs.find((r) => r.file === file)!)]))
}
