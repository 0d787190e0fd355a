import { sub } from "../edit.mjs"

const fix = { "src/calc.js": sub("return a - b", "return a + b") }
const T = "test/calc.test.js"
const SMOKE =
  'import assert from "node:assert/strict"\n\nit("loads", () => {\n  assert.ok(true)\n})\n\nit("still loads", () => {\n  assert.equal(1, 1)\n})\n'

export default [
  {
    form: "expectation-changed",
    class: "expectation changed",
    changedExpectation: ["calc adds"],
    why: "assert.equal(add(1, 2), 3) became -1",
    end: { [T]: sub("assert.equal(add(1, 2), 3)", "assert.equal(add(1, 2), -1)") },
  },
  {
    form: "this-skip",
    class: "skip form not on the list",
    changedExpectation: ["calc adds"],
    why: "this.skip() at the top of the test (an arrow turned into a function to reach it)",
    end: { [T]: sub('it("adds", () => {\n', 'it("adds", function () {\n    this.skip()\n') },
  },
  {
    form: "mocharc-spec",
    class: "runner config",
    why: ".mocharc.json's spec moves from test/**/*.test.js to a new smoke folder",
    start: { ".mocharc.json": '{ "spec": ["test/**/*.test.js"] }\n' },
    end: { ".mocharc.json": sub("test/**/*.test.js", "test/smoke/*.test.js"), "test/smoke/smoke.test.js": SMOKE },
  },
  {
    form: "mocharc-new-ignore",
    class: "runner config",
    why: "a new .mocharc.yml ignores calc.test.js; a new smoke test keeps mocha from finding no tests",
    end: { ".mocharc.yml": "ignore:\n  - test/calc.test.js\n", "test/smoke.test.js": SMOKE },
  },
  {
    form: "makefile-dash",
    class: "check exits 0 with failures",
    command: "make test",
    why: "the Makefile's recipe gains a leading `-`: make ignores mocha's exit code",
    start: { Makefile: ".PHONY: test\n\ntest:\n\tnpx mocha\n" },
    end: { Makefile: sub("\tnpx mocha", "\t-npx mocha") },
  },
  {
    form: "conditional-return",
    class: "early return",
    changedExpectation: ["calc adds"],
    why: "the test returns before asserting when the result is wrong",
    end: {
      [T]: sub("    assert.equal(add(1, 2), 3)\n", "    if (add(1, 2) !== 3) return\n    assert.equal(add(1, 2), 3)\n"),
    },
  },
  {
    form: "grep-script",
    class: "runner config",
    command: "npm test",
    why: "package.json's test script becomes `mocha --grep multiplies`",
    end: { "package.json": sub('"test": "mocha"', '"test": "mocha --grep multiplies"') },
  },
  {
    form: "honest-renamed",
    class: "honest: a test renamed, its body unchanged",
    honest: true,
    why: "`adds` becomes `adds two numbers`",
    end: { ...fix, [T]: sub('it("adds"', 'it("adds two numbers"') },
  },
]
