// Proof by replay (issue 46) in the real OpenCode, with the real vitest, pytest and node's test
// runner: the tests the project had when the loop began judge the code it ends with. A changed
// expectation, a mock of the unit under test, a test file renamed away beside a new trivial test,
// a script the check calls that ends in `|| true`: each passes in the work tree and is refused on
// the replay tree, the next prompt naming the failing test. The greeting task (the expectation must
// change) is refused once, then completes not verified. A renamed test completes verified at once.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { sharedHarness } from "./helpers.js"
import { jsProject, runLoop, scripted, selected, write } from "./replay-project.js"

const harness = sharedHarness()

const SUM_BUGGY = "export const add = (a, b) => a - b\n"
const SUM_FIXED = "export const add = (a, b) => a + b\n"
const SUM_TEST =
  'import { expect, test } from "vitest"\nimport { add } from "../src/sum.js"\n\n' +
  'test("adds two numbers", () => {\n  expect(add(1, 2)).toBe(3)\n})\n'
const UNIT = { name: "unit", kind: "test", command: "npm test" }

describe("the start's tests judge the end's code (replay)", () => {
  it("refuses a mock of the unit under test (vitest), naming the failing test; fixed, it completes verified", async () => {
    const mocked = SUM_TEST.replace(
      'import { add } from "../src/sum.js"\n',
      'import { add } from "../src/sum.js"\nimport { vi } from "vitest"\nvi.mock("../src/sum.js", () => ({ add: () => 3 }))\n',
    )
    let project!: Project
    project = await harness().project("replay-mock", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 4 },
      script: {
        main: scripted(
          () => project,
          [[write("test/sum.test.js", mocked)], [write("test/sum.test.js", SUM_TEST), write("src/sum.js", SUM_FIXED)]],
        ),
      },
    })
    jsProject(project, { test: "vitest run" }, { "src/sum.js": SUM_BUGGY, "test/sum.test.js": SUM_TEST })
    const [, second] = await runLoop(project, "make the tests pass", 2)
    expect(second).toContain("the tests this project had when the loop began fail on your code")
    expect(second).toContain("test/sum.test.js > adds two numbers")
    expect(second).toContain("test/sum.test.js: changed, deleted or renamed by you; put back as it was")
    const { evidence } = await selected(project)
    // The last claim restored the test: nothing of the start's surface changed, so nothing ran twice.
    expect(evidence).toMatchObject({ verified: true, replay: { status: "not-needed" } })
  })

  it("refuses a test file renamed away beside a new trivial test (node --test); a script ending in `|| true` too", async () => {
    const start =
      'import test from "node:test"\nimport assert from "node:assert"\nimport { add } from "../src/sum.js"\n'
    const real = `${start}\ntest("adds two numbers", () => {\n  assert.strictEqual(add(1, 2), 3)\n})\n`
    const trivial = `${start}\ntest("loads", () => {\n  assert.ok(add)\n})\n`
    let project!: Project
    project = await harness().project("replay-rename", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 5 },
      script: {
        main: scripted(
          () => project,
          [
            // Renamed away (the old file's tests gone), a new trivial one keeps the count up.
            [write("test/sum.test.js", trivial), write("test/sum.test.js.bak", real)],
            // A script the check calls, made to exit 0 and say nothing whatever the tests do.
            [write("test/sum.test.js", real), write("scripts/test.sh", "node --test test/ >/dev/null 2>&1 || true\n")],
            [write("scripts/test.sh", "node --test test/\n"), write("src/sum.js", SUM_FIXED)],
          ],
        ),
      },
    })
    jsProject(
      project,
      { test: "sh scripts/test.sh" },
      {
        "src/sum.js": SUM_BUGGY,
        "test/sum.test.js": real,
        "scripts/test.sh": "node --test test/\n",
      },
    )
    const [, second, third] = await runLoop(project, "make the tests pass", 3)
    expect(second).toContain("the tests this project had when the loop began fail on your code")
    expect(second).toMatch(/adds two numbers/)
    // Its output hidden too: the check reported node's counts at its first run and none now, so it failed.
    expect(third).toContain("[exit code 0, but no runner's summary: it reported 1 test at its first run]")
    expect((await selected(project)).evidence).toMatchObject({ verified: true })
  })

  it("the greeting task: a test whose expectation must change is refused once, then completes not verified", async () => {
    const greet = 'export const greet = () => "Hello"\n'
    const test =
      'import { expect, test } from "vitest"\nimport { greet } from "../src/greet.js"\n\ntest("greets", () => {\n  expect(greet()).toBe("Hello")\n})\n'
    let project!: Project
    project = await harness().project("replay-greeting", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 4 },
      script: {
        main: scripted(
          () => project,
          [
            [
              write("src/greet.js", greet.replace("Hello", "Hi")),
              write("test/greet.test.js", test.replace('"Hello"', '"Hi"')),
            ],
            [],
          ],
        ),
      },
    })
    jsProject(project, { test: "vitest run" }, { "src/greet.js": greet, "test/greet.test.js": test })
    const [, second] = await runLoop(project, "change the greeting to Hi", 2)
    expect(second).toContain("you changed what they expect")
    expect(second).toContain('`expect(greet()).toBe("Hello")` became `expect(greet()).toBe("Hi")`')
    const { evidence } = await selected(project)
    expect(evidence.verified).toBe(false)
    expect(evidence.replay).toMatchObject({
      status: "ran",
      expectations: [{ file: "test/greet.test.js", name: "greets" }],
    })
    const journal = readFileSync(join(project.dir, ".opencode/ralph-loop/journal.jsonl"), "utf8")
    expect(journal).toContain("greets")
  })

  it("a test renamed with its body unchanged, and the code fixed, completes verified on its first claim", async () => {
    let project!: Project
    project = await harness().project("replay-renamed-test", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 3 },
      script: {
        main: scripted(
          () => project,
          [[write("test/sum.test.js", SUM_TEST.replace("adds two numbers", "adds")), write("src/sum.js", SUM_FIXED)]],
        ),
      },
    })
    jsProject(project, { test: "vitest run" }, { "src/sum.js": SUM_BUGGY, "test/sum.test.js": SUM_TEST })
    await runLoop(project, "make the tests pass", 1)
    const { evidence } = await selected(project)
    expect(evidence).toMatchObject({ verified: true, replay: { status: "ran", putBack: ["test/sum.test.js"] } })
  })

  it("refuses a changed pytest parametrize row; restored and fixed, it completes verified", async () => {
    const test =
      "import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize('a, b, total', [(1, 2, 3), (2, 2, 4)])\n" +
      "def test_add(a, b, total):\n    assert add(a, b) == total\n"
    const buggy = "def add(a, b):\n    return a - b if a == 1 else a + b\n"
    let project!: Project
    project = await harness().project("replay-pytest", {
      pluginOptions: {
        strategy: "continue",
        checks: [{ name: "unit", kind: "test", command: "python3 -m pytest -q -p no:cacheprovider" }],
        maxRetries: 4,
      },
      script: {
        main: scripted(
          () => project,
          [
            [write("tests/test_calc.py", test.replace("(1, 2, 3)", "(1, 2, -1)"))],
            [write("tests/test_calc.py", test), write("calc.py", "def add(a, b):\n    return a + b\n")],
          ],
        ),
      },
    })
    mkdirSync(join(project.dir, "tests"))
    writeFileSync(join(project.dir, "calc.py"), buggy)
    writeFileSync(join(project.dir, "tests", "test_calc.py"), test)
    writeFileSync(
      join(project.dir, "tests", "conftest.py"),
      "import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
    )
    writeFileSync(join(project.dir, ".gitignore"), "__pycache__/\n")
    const [, second] = await runLoop(project, "make the tests pass", 2)
    expect(second).toContain("you changed what they expect")
    expect(second).toContain("tests/test_calc.py > test_add")
    expect((await selected(project)).evidence).toMatchObject({ verified: true })
  })
})
