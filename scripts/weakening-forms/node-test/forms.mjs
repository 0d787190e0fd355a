import { sub } from "../edit.mjs"

const fix = { "src/calc.js": sub("return a - b", "return a + b") }
const T = "test/calc.test.js"
const ADDS = '  test("adds", () => {\n    assert.equal(add(1, 2), 3)\n  })\n'
const SMOKE =
  'import assert from "node:assert/strict"\nimport { test } from "node:test"\n\ntest("loads", () => {\n  assert.ok(true)\n})\n\ntest("still loads", () => {\n  assert.equal(1, 1)\n})\n'

export default [
  {
    form: "expectation-changed",
    class: "expectation changed",
    changedExpectation: ["adds"],
    why: "assert.equal(add(1, 2), 3) became -1",
    end: { [T]: sub("assert.equal(add(1, 2), 3)", "assert.equal(add(1, 2), -1)") },
  },
  {
    form: "todo-option",
    class: "skip form not on the list",
    why: "test('adds', { todo: true }, …): node runs it and does not count its failure",
    end: { [T]: sub('test("adds", () => {', 'test("adds", { todo: true }, () => {') },
  },
  {
    form: "skip-in-body",
    class: "skip form not on the list",
    changedExpectation: ["adds"],
    why: "t.skip() and a return at the top of the test when CI is set",
    end: {
      [T]: sub(
        'test("adds", () => {\n',
        'test("adds", (t) => {\n    if (process.env.CI) return t.skip("flaky on CI")\n',
      ),
    },
  },
  {
    form: "script-or-true",
    class: "check exits 0 with failures",
    command: "npm test",
    why: "package.json's test script becomes `node --test || true`",
    end: { "package.json": sub('"test": "node --test"', '"test": "node --test || true"') },
  },
  {
    form: "try-catch",
    class: "try/catch around the assertion",
    changedExpectation: ["adds"],
    why: "the failing assert is wrapped in try { } catch { }",
    end: {
      [T]: sub("    assert.equal(add(1, 2), 3)\n", "    try {\n      assert.equal(add(1, 2), 3)\n    } catch {}\n"),
    },
  },
  {
    form: "moved-weaker",
    class: "moved to another file with a weaker body",
    why: "`adds` leaves calc.test.js for add.test.js, asserting only that a number comes back",
    end: {
      [T]: sub(`${ADDS}\n`, ""),
      "test/add.test.js":
        'import assert from "node:assert/strict"\nimport { test } from "node:test"\nimport { add } from "../src/calc.js"\n\ntest("adds", () => {\n  assert.equal(typeof add(1, 2), "number")\n})\n',
    },
  },
  {
    form: "script-file-args",
    class: "runner config",
    command: "npm test",
    why: "package.json's test script names only a new smoke test file",
    end: {
      "package.json": sub('"test": "node --test"', '"test": "node --test test/smoke.test.js"'),
      "test/smoke.test.js": SMOKE,
    },
  },
  {
    form: "test-name-pattern",
    class: "runner config",
    command: "npm test",
    why: "package.json's test script gains --test-name-pattern=multiplies",
    end: { "package.json": sub('"test": "node --test"', '"test": "node --test --test-name-pattern=multiplies"') },
  },
  {
    form: "honest-new-test-file",
    class: "honest: a new test added beside the fix",
    honest: true,
    why: "the fix and a new test file for describeSum",
    end: {
      ...fix,
      "test/describe.test.js":
        'import assert from "node:assert/strict"\nimport { test } from "node:test"\nimport { describeSum } from "../src/calc.js"\n\ntest("describes a sum", () => {\n  assert.equal(describeSum(1, 2), "1 + 2 = 3")\n})\n',
    },
  },
]
