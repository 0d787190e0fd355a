// Which files a check's output names: the tools' own formats (with their severities) and the files
// a failing output merely mentions.
import { describe, expect, it } from "vitest"
import { parseCheckOutput } from "../../src/checks/diagnostics.js"
import { findingsOf, mentionedFiles } from "../../src/checks/findings.js"

const PROJECT = "/home/me/shop"

describe("findings by tool", () => {
  it("ESLint stylish (its default): the file on its own line, absolute, then its rows", () => {
    const out = [
      "",
      "/home/me/shop/src/a.js",
      "   1:10  error    'x' is defined but never used  no-unused-vars",
      "   2:1   warning  Unexpected console statement    no-console",
      "",
      "/home/me/shop/lib/b.js",
      "  4:2  error  Missing semicolon  semi",
      "",
      "✖ 3 problems (2 errors, 1 warning)",
    ].join("\n")
    expect(findingsOf(out, PROJECT)).toEqual([
      { path: "src/a.js", severity: "error" },
      { path: "src/a.js", severity: "warning" },
      { path: "lib/b.js", severity: "error" },
    ])
    expect(parseCheckOutput("lint", out, 1, PROJECT)).toMatchObject({
      errors: 2,
      warnings: 1,
      files: [
        { path: "src/a.js", errors: 1, warnings: 1 },
        { path: "lib/b.js", errors: 1, warnings: 0 },
      ],
    })
  })

  it("ESLint --format json and --format unix", () => {
    const json = JSON.stringify([
      {
        filePath: "/home/me/shop/src/a.js",
        messages: [{ severity: 2 }, { severity: 1 }],
        errorCount: 1,
        warningCount: 1,
      },
      { filePath: "/home/me/shop/src/ok.js", messages: [], errorCount: 0, warningCount: 0 },
    ])
    expect(parseCheckOutput("lint", json, 1, PROJECT)).toMatchObject({
      errors: 1,
      warnings: 1,
      files: [{ path: "src/a.js", errors: 1, warnings: 1 }],
    })
    const unix =
      "/home/me/shop/src/c.js:3:1: Unexpected var. [Error/no-var]\n/home/me/shop/src/c.js:4:1: Unexpected console. [Warning/no-console]\n\n2 problems"
    expect(parseCheckOutput("lint", unix, 1, PROJECT)).toMatchObject({
      errors: 1,
      warnings: 1,
      files: [{ path: "src/c.js", errors: 1, warnings: 1 }],
    })
  })

  it("ruff, concise and full: E and F are errors, W warnings, other codes info", () => {
    const concise =
      "src/x.py:1:8: F401 [*] `os` imported but unused\nsrc/x.py:3:80: E501 Line too long (99 > 88)\nsrc/y.py:2:1: W291 Trailing whitespace\nsrc/y.py:5:1: D100 Missing docstring\nFound 4 errors."
    expect(parseCheckOutput("lint", concise, 1)).toMatchObject({
      errors: 2,
      warnings: 1,
      info: 1,
      files: [
        { path: "src/x.py", errors: 2, warnings: 0 },
        { path: "src/y.py", errors: 0, warnings: 1 },
      ],
    })
    const full = [
      "F401 [*] `os` imported but unused",
      " --> src/x.py:1:8",
      "  |",
      "1 | import os",
      "  |        ^^",
      "  |",
      "",
      "W291 Trailing whitespace",
      " --> src/y.py:2:10",
      "",
      "Found 2 errors.",
    ].join("\n")
    expect(parseCheckOutput("lint", full, 1)).toMatchObject({
      errors: 1,
      warnings: 1,
      files: [
        { path: "src/x.py", errors: 1 },
        { path: "src/y.py", warnings: 1 },
      ],
    })
  })

  it("a path outside the project is not the project's", () => {
    expect(findingsOf("/usr/lib/node/x.js:1:1: error boom", PROJECT)).toEqual([])
  })
})

describe("files a failing output mentions", () => {
  it("paths with a folder, bare names before a colon, relative to the project; not URLs or versions", () => {
    const out =
      "src/a.js: error: file missing\nsee ./docs/guide.md and https://example.com/x.js\nat Object.<anonymous> (/home/me/shop/test/a.test.ts:3:9)\nnode v20.1.0, a.ts:12 failed, e.g. done"
    expect(mentionedFiles(out, PROJECT)).toEqual(["src/a.js", "docs/guide.md", "test/a.test.ts", "a.ts"])
  })

  it("are kept on a failing check of any kind, also a test; a passing one mentions none", () => {
    expect(parseCheckOutput("test", "src/a.js: error: file missing", 1).mentioned).toEqual(["src/a.js"])
    expect(parseCheckOutput("test", "checked src/a.js", 0).mentioned).toBeUndefined()
  })
})
