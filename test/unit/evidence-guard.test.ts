// The guard against weakened verification, on diffs the real git made (test/fixtures/guard/, by
// scripts/make-guard-fixtures.mjs): each rule refuses what it should and names it exactly, and
// ordinary work — tests added, a test file renamed, test code edited around its assertions, files
// the checks do not read — raises nothing.
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { findingKey, findingText, refuses, type Finding } from "../../src/evidence/finding.js"
import { fewerTests, guardFindings, type GuardInput } from "../../src/evidence/guard.js"
import { parseDiff } from "../../src/evidence/diff.js"
import { scanDiff } from "../../src/evidence/scan.js"
import { changedCheckScripts, scriptsCalled } from "../../src/evidence/scripts.js"
import { testCounts } from "../../src/checks/test-counts.js"
import { outputOf } from "./runner-fixtures.js"

const GUARD = fileURLToPath(new URL("../fixtures/guard/", import.meta.url))
const diffOf = (name: string) => readFileSync(`${GUARD}${name}.diff`, "utf8")
const textsOf = (name: string): Record<string, { before: string; after: string }> =>
  existsSync(`${GUARD}${name}.texts.json`) ? JSON.parse(readFileSync(`${GUARD}${name}.texts.json`, "utf8")) : {}

const UNIT = { name: "unit", command: "npm test", first: null, now: null }

/** What the guard finds in a scenario, the check being `npm test`, given the texts the caller reads. */
function found(name: string, file = name): Finding[] {
  const texts = textsOf(name)
  const input: GuardInput = { diff: diffOf(file), texts: new Map(Object.entries(texts)), checks: [UNIT] }
  if (texts["package.json"]) input.packageJson = texts["package.json"]
  return guardFindings(input)
}

/** A finding of an added line. */
const added = (kind: Finding["kind"], file: string, name: string, line: number, after: string): Finding => ({
  kind,
  file,
  name,
  line,
  before: null,
  after,
})

/** A diff of one file with one hunk. */
const diffWith = (path: string, hunk: string) => `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n${hunk}`

describe("tests skipped or focused: refused, on added lines only", () => {
  it("JS/TS: .skip, .only, xdescribe", () => {
    const skip = added("skip", "test/calc.test.js", "test.skip", 9, '  test.skip("adds negative numbers", () => {')
    expect(found("js-skip")).toEqual([skip])
    expect(found("js-focus").map((f) => [f.name, f.line])).toEqual([
      ["xdescribe", 16],
      ["test.only", 17],
    ])
  })

  it("Python: @pytest.mark.skip and pytest.skip(", () => {
    expect(found("py-skip")).toEqual([
      added("skip", "test_calc.py", "pytest.mark.skip", 10, '@pytest.mark.skip(reason="flaky")'),
      added("skip", "test_calc.py", "pytest.skip", 17, '        pytest.skip("later")'),
    ])
  })

  it("Go: t.Skip( — Rust: #[ignore]", () => {
    expect(found("go-skip")).toEqual([added("skip", "go/calc_test.go", "t.Skip", 12, '\tt.Skip("later")')])
    expect(found("rust-ignore")).toEqual([added("skip", "rust/src/lib.rs", "#[ignore]", 15, "    #[ignore]")])
  })

  it("every marker of the issue, on an added line of a test file; a removed one is nothing", () => {
    const adding = (path: string, line: string) => diffWith(path, `@@ -1,0 +1,1 @@\n+${line}\n`)
    const changing = (path: string, from: string, line: string) =>
      diffWith(path, `@@ -1,1 +1,1 @@\n-${from}\n+${line}\n`)
    const cases: [string, string | null, string, string][] = [
      ["a.test.ts", 'it("x", () => {})', 'it.skip("x", () => {})', "it.skip"],
      ["a.test.ts", null, 'describe.only("x", () => {})', "describe.only"],
      ["a.test.ts", 'test("x", () => {})', 'test.todo("x")', "test.todo"],
      ["a.test.ts", 'it("x", () => {})', 'xit("x", () => {})', "xit"],
      ["a.test.ts", 'test("x", async () => {})', 'test.concurrent.skip("x", async () => {})', "test.concurrent.skip"],
      ["a.test.ts", null, 'test.only("a new test", () => {})', "test.only"],
      ["test_a.py", null, "@pytest.mark.skipif(sys.platform == 'win32', reason='x')", "pytest.mark.skip"],
      ["test_a.py", null, "@pytest.mark.xfail", "pytest.mark.xfail"],
      ["test_a.py", null, '@unittest.skip("x")', "unittest.skip"],
    ]
    for (const [path, from, line, name] of cases) {
      const diff = from === null ? adding(path, line) : changing(path, from, line)
      expect(scanDiff(diff), line).toEqual([added("skip", path, name, 1, line)])
    }
    // A new test added skipped or as a todo never ran: nothing (a focused one stops the others: above).
    expect(scanDiff(adding("a.test.ts", 'test.todo("a new test")'))).toEqual([])
    expect(scanDiff(diffWith("test_a.py", '@@ -1,1 +1,0 @@\n-@pytest.mark.skip(reason="x")\n'))).toEqual([])
    // Not markers: a method of that name on something else, a call that names no test.
    for (const line of ["stream.skip(3)", "const unfit = fit(model)", "items.only(1)", "latest.skip(2)"]) {
      expect(scanDiff(adding("a.test.ts", line)), line).toEqual([])
    }
  })
})

describe("tests removed: refused, named from the diff", () => {
  it("test(…), def test_…, func Test…, #[test] fn …", () => {
    const removed = (name: string) => found(name).map((f) => [f.kind, f.file, f.name, f.line, f.before])
    expect(removed("js-remove")).toEqual([
      ["removed-test", "test/calc.test.js", "adds small numbers", 5, '  test("adds small numbers", () => {'],
    ])
    expect(removed("py-remove")).toEqual([
      ["removed-test", "test_calc.py", "test_adds_negative_numbers", 10, "def test_adds_negative_numbers():"],
    ])
    expect(removed("go-remove")).toEqual([
      ["removed-test", "go/calc_test.go", "TestAddSmallNumbers", 5, "func TestAddSmallNumbers(t *testing.T) {"],
    ])
    expect(removed("rust-remove")).toEqual([
      ["removed-test", "rust/src/lib.rs", "adds_small_numbers", 10, "    fn adds_small_numbers() {"],
    ])
  })

  it("a deleted test file: each of its tests", () => {
    const names = found("test-file-deleted").map((f) => f.name)
    expect(names).toEqual(["test_adds_small_numbers", "test_adds_negative_numbers", "test_adds_zero"])
  })

  it("a check that ran fewer tests than at its first run (the real runners' skipped and removed runs)", () => {
    const counts = (tool: string, file: string) => testCounts(outputOf(tool, `${file}.txt`))
    const first = counts("vitest", "pass-1")
    expect(fewerTests({ name: "unit", first, now: counts("vitest", "skipped-1") })).toEqual({
      kind: "fewer-tests",
      file: null,
      name: "unit",
      before: "4 tests ran",
      after: "3 tests ran",
    })
    const pytest = { name: "py", first: counts("pytest", "pass-1"), now: counts("pytest", "removed-1") }
    expect(fewerTests(pytest)?.after).toBe("3 tests ran")
    // As many or more, or no count on either side: nothing.
    expect(fewerTests({ name: "unit", first, now: counts("vitest", "fixed-1") })).toBeUndefined()
    expect(fewerTests({ name: "go", first: null, now: counts("go", "removed-1") })).toBeUndefined()
  })
})

describe("what a check runs, changed: refused", () => {
  it("the package.json script `npm test` runs, and the script its pretest calls", () => {
    const script = (name: string, before: string, after: string): Finding => {
      return { kind: "check-script", file: "package.json", name, before, after }
    }
    expect(found("npm-test-script")).toEqual([script("test", "vitest run", "echo ok")])
    expect(found("pretest-script")).toEqual([script("build", "tsc -p .", "true")])
  })

  it("the scripts npm, pnpm, yarn and bun run, with pre and post scripts", () => {
    expect(scriptsCalled("npm test")).toEqual(["test"])
    const command = "CI=1 npm run --silent lint && pnpm typecheck; yarn run unit || yarn e2e | bun run fmt"
    expect(scriptsCalled(command)).toEqual(["lint", "typecheck", "unit", "e2e", "fmt"])
    expect(scriptsCalled("pnpm install && yarn add x && npm ci && pytest")).toEqual([])
    const before = JSON.stringify({ scripts: { test: "vitest run", posttest: "node check.js", lint: "eslint ." } })
    const after = JSON.stringify({ scripts: { test: "vitest run", posttest: "true", lint: "true", pretest: "exit 0" } })
    expect(changedCheckScripts("pnpm test", before, after).map((f) => [f.name, f.before, f.after])).toEqual([
      ["pretest", null, "exit 0"],
      ["posttest", "node check.js", "true"],
    ])
    // lint is not what `pnpm test` runs; a package.json that no longer parses has lost its scripts.
    expect(changedCheckScripts("pnpm test", before, "{ not json").map((f) => f.name)).toEqual(["test", "posttest"])
  })

  it("the runner's config, a linter's, the type checker's strictness, the loop's own checks", () => {
    const config = (name: string) => found(name).map((f) => [f.kind, f.file, f.before, f.after])
    const exclude = '    exclude: ["test/calc.test.js"],'
    expect(config("vitest-config")).toEqual([["check-config", "vitest.config.ts", null, exclude]])
    const deselect = 'addopts = "-ra --deselect test_calc.py::test_adds_negative_numbers"'
    expect(config("pyproject-pytest")).toEqual([["check-config", "pyproject.toml", 'addopts = "-ra"', deselect]])
    const strict = ['    "strict": true,', '    "strict": false,']
    expect(config("tsconfig-strict")).toEqual([["check-config", "tsconfig.json", ...strict]])
    expect(config("eslint-config")).toEqual([
      [
        "check-config",
        "eslint.config.js",
        'export default [{ rules: { "no-unused-vars": "error" } }]',
        'export default [{ rules: { "no-unused-vars": "off" } }]',
      ],
    ])
    const renamed = ["vitest.config.ts", "vitest.config.ts.off"]
    expect(config("vitest-config-renamed")).toEqual([["check-config", "vitest.config.ts", ...renamed]])
    expect(config("loop-checks")).toEqual([
      [
        "check-config",
        ".opencode/ralph-loop.jsonc",
        '  "checks": [{ "name": "unit", "kind": "test", "command": "npm test" }]',
        '  "checks": [{ "name": "unit", "kind": "test", "command": "true" }]',
      ],
    ])
  })
})

describe("sections of pyproject.toml and setup.cfg", () => {
  it("a hunk whose section header is above its context is placed by the whole texts; without them, not counted", () => {
    expect(scanDiff(diffOf("pyproject-pytest"))).toEqual([])
    const hunk = "@@ -1,3 +1,3 @@\n [tool:pytest]\n-addopts = -ra\n+addopts = -ra -k 'not slow'\n [metadata]\n"
    const setupCfg = diffWith("setup.cfg", hunk)
    expect(scanDiff(setupCfg).map((f) => [f.file, f.before, f.after])).toEqual([
      ["setup.cfg", "addopts = -ra", "addopts = -ra -k 'not slow'"],
    ])
    const version = "@@ -1,2 +1,2 @@\n [metadata]\n-version = 1.0\n+version = 1.1\n"
    expect(scanDiff(diffWith("setup.cfg", version))).toEqual([])
  })
})

describe("suppressions added: refused", () => {
  it("@ts-ignore, eslint-disable, # noqa, # type: ignore, #[allow(…)]", () => {
    expect(found("suppressions").map((f) => [f.kind, f.file, f.name, f.line])).toEqual([
      ["suppression", "app.py", "# noqa", 1],
      ["suppression", "app.py", "# type: ignore", 5],
      ["suppression", "rust/src/lib.rs", "#[allow(…)]", 1],
      ["suppression", "src/app.ts", "@ts-ignore", 3],
      ["suppression", "src/app.ts", "eslint-disable", 5],
    ])
  })
})

describe("a changed expectation: listed, not refused", () => {
  it("toBe(12) → toBe(0), == 3 → == 4, each with its test", () => {
    const findings = found("expectation")
    expect(findings).toEqual([
      {
        kind: "expectation",
        file: "test/calc.test.js",
        name: "multiplies",
        line: 18,
        before: "      expect(multiply(3, 4)).toBe(12)",
        after: "      expect(multiply(3, 4)).toBe(0)",
      },
      {
        kind: "expectation",
        file: "test_calc.py",
        name: "test_adds_small_numbers",
        line: 7,
        before: "    assert add(1, 2) == 3",
        after: "    assert add(1, 2) == 4",
      },
    ])
    expect(findings.some(refuses)).toBe(false)
  })
})

describe("ordinary work raises nothing", () => {
  it("adding tests (JS, Python, Go, Rust), some of them skipped or a todo (they never ran)", () => {
    expect(found("add-tests")).toEqual([])
  })

  it("renaming test files while keeping their tests, renames found or not (a test.todo moves with its file)", () => {
    expect(found("rename-test-file")).toEqual([])
    expect(found("rename-test-file", "rename-test-file.no-renames")).toEqual([])
    expect(parseDiff(diffOf("rename-test-file")).map((f) => [f.oldPath, f.newPath])).toEqual([
      ["test/calc.test.js", "test/arithmetic.test.js"],
      ["test_calc.py", "test_arithmetic.py"],
    ])
  })

  it("editing test code around unchanged assertions (a setup line, a comment, a describe around, a loop)", () => {
    expect(found("edit-around-assertions")).toEqual([])
  })

  it("changing files the checks do not read: code, README, package.json but its scripts, other sections", () => {
    expect(found("unrelated-files")).toEqual([])
  })
})

describe("the findings' words and names", () => {
  it("name each finding precisely for the next prompt", () => {
    expect(found("js-skip").map(findingText)).toEqual([
      'test/calc.test.js:9 skips or focuses a test (test.skip): `test.skip("adds negative numbers", () => {`',
    ])
    expect(found("py-remove").map(findingText)).toEqual([
      "the test test_adds_negative_numbers was removed from test_calc.py:10: `def test_adds_negative_numbers():`",
    ])
    expect(found("npm-test-script").map(findingText)).toEqual([
      'the "test" script in package.json, which a check runs, changed: before `vitest run`, after `echo ok`',
    ])
  })

  it("a finding's key is the same at every claim while the change stands, and differs from another's", () => {
    const [skip] = found("js-skip")
    expect(findingKey(skip!)).toBe(findingKey(found("js-skip")[0]!))
    expect(new Set(found("suppressions").map(findingKey)).size).toBe(5)
  })
})

describe("reading a diff", () => {
  it("a removed line that begins with `--- ` is a line of its hunk, not a file's header; quoted paths", () => {
    const diff = [
      'diff --git "a/t\\303\\251st dir/a.test.ts" "b/t\\303\\251st dir/a.test.ts"',
      '--- "a/t\\303\\251st dir/a.test.ts"',
      '+++ "b/t\\303\\251st dir/a.test.ts"',
      "@@ -1,2 +1,2 @@",
      "--- a/b.test.ts",
      '+test.only("x", () => {})',
      " const kept = 1",
      "",
    ].join("\n")
    expect(scanDiff(diff)).toEqual([added("skip", "tést dir/a.test.ts", "test.only", 1, 'test.only("x", () => {})')])
  })

  it("200 files of long hostile lines are read once each (no pattern backtracks over them)", () => {
    const line = `+${"test.".repeat(800)}${"xit".repeat(300)}${"# ".repeat(500)}\n`
    const file = (i: number) => diffWith(`t${i}.test.ts`, `@@ -0,0 +1,10 @@\n${line.repeat(10)}`)
    const diff = Array.from({ length: 200 }, (_, i) => file(i)).join("")
    expect(scanDiff(diff)).toEqual([])
  })
})
