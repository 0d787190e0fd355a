#!/usr/bin/env node
// Regenerates test/fixtures/guard/: the diffs the guard against weakened verification reads
// (src/evidence/scan.ts), each made by the real git. For each scenario: a small project in a new
// temporary repository, committed as the loop's start checkpoint; the scenario's edit (what a model
// might do); the work tree committed as the checkpoint now; then
// `git diff --no-color --no-ext-diff -M <start> <now>` written to <scenario>.diff (and, where the
// scenario says so, `--no-renames` too). The repositories are removed afterwards.
//
//   node scripts/make-guard-fixtures.mjs
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const out = join(root, "test", "fixtures", "guard")

const PROJECT = {
  "package.json": `{
  "name": "calc",
  "version": "1.0.0",
  "type": "module",
  "scripts": {
    "build": "tsc -p .",
    "pretest": "npm run build",
    "test": "vitest run",
    "lint": "eslint ."
  },
  "devDependencies": {
    "vitest": "4.1.12"
  }
}
`,
  "src/calc.js": `export const add = (a, b) => a + b
export const multiply = (a, b) => a * b
`,
  "src/app.ts": `import { add } from "./calc.js"

export function total(values: number[]): number {
  return values.reduce((sum, v) => add(sum, v), 0)
}
`,
  "test/calc.test.js": `import { describe, expect, test } from "vitest"
import { add, multiply } from "../src/calc.js"

describe("calc", () => {
  test("adds small numbers", () => {
    expect(add(1, 2)).toBe(3)
  })

  test("adds negative numbers", () => {
    const sum = add(-1, -2)
    expect(sum).toBe(-3)
  })

  test.todo("adds fractions")

  describe("multiply", () => {
    test("multiplies", () => {
      expect(multiply(3, 4)).toBe(12)
    })
  })
})
`,
  "calc.py": `def add(a, b):
    return a + b
`,
  "app.py": `from calc import add


def total(values):
    return sum(values)
`,
  "test_calc.py": `import pytest

from calc import add


def test_adds_small_numbers():
    assert add(1, 2) == 3


def test_adds_negative_numbers():
    assert add(-1, -2) == -3


class TestAdd:
    def test_adds_zero(self):
        assert add(0, 0) == 0
`,
  "go/calc.go": `package calc

func Add(a, b int) int { return a + b }
`,
  "go/calc_test.go": `package calc

import "testing"

func TestAddSmallNumbers(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestAddNegativeNumbers(t *testing.T) {
	want := -3
	if got := Add(-1, -2); got != want {
		t.Errorf("Add(-1, -2) = %d, want %d", got, want)
	}
}
`,
  "rust/src/lib.rs": `pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_small_numbers() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn adds_negative_numbers() {
        assert_eq!(add(-1, -2), -3);
    }
}
`,
  "vitest.config.ts": `import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.js"],
  },
})
`,
  "pyproject.toml": `[project]
name = "calc"
version = "1.0.0"
description = "Adds numbers"
requires-python = ">=3.9"
dependencies = []

[tool.pytest.ini_options]
minversion = "7.0"
testpaths = ["."]
python_files = ["test_*.py"]
addopts = "-ra"

[tool.black]
line-length = 100
`,
  "tsconfig.json": `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "strict": true,
    "outDir": "dist"
  }
}
`,
  "eslint.config.js": `export default [{ rules: { "no-unused-vars": "error" } }]
`,
  ".opencode/ralph-loop.jsonc": `{
  // the checks that verify the loop's work
  "checks": [{ "name": "unit", "kind": "test", "command": "npm test" }]
}
`,
  "README.md": `# calc

Adds numbers.
`,
}

/** Replaces `from` (which must be there) with `to` in a file. */
const edit = (files, path, from, to) => {
  if (!files[path].includes(from)) throw new Error(`${path} has no ${JSON.stringify(from)}`)
  files[path] = files[path].replace(from, to)
}

/** name → the edit (files: path → text, or null to delete; mv: git mv first) and whether a --no-renames diff is made too. */
const SCENARIOS = {
  // Refused: tests skipped or focused.
  "js-skip": (f) => edit(f, "test/calc.test.js", 'test("adds negative numbers"', 'test.skip("adds negative numbers"'),
  "js-focus": (f) => {
    edit(f, "test/calc.test.js", 'test("multiplies"', 'test.only("multiplies"')
    edit(f, "test/calc.test.js", 'describe("multiply"', 'xdescribe("multiply"')
  },
  "py-skip": (f) => {
    edit(
      f,
      "test_calc.py",
      "def test_adds_negative_numbers():",
      '@pytest.mark.skip(reason="flaky")\ndef test_adds_negative_numbers():',
    )
    edit(
      f,
      "test_calc.py",
      "    def test_adds_zero(self):\n",
      '    def test_adds_zero(self):\n        pytest.skip("later")\n',
    )
  },
  "go-skip": (f) =>
    edit(
      f,
      "go/calc_test.go",
      "func TestAddNegativeNumbers(t *testing.T) {\n",
      'func TestAddNegativeNumbers(t *testing.T) {\n\tt.Skip("later")\n',
    ),
  "rust-ignore": (f) =>
    edit(
      f,
      "rust/src/lib.rs",
      "    #[test]\n    fn adds_negative_numbers",
      "    #[test]\n    #[ignore]\n    fn adds_negative_numbers",
    ),
  // Refused: tests removed.
  "js-remove": (f) =>
    edit(f, "test/calc.test.js", '  test("adds small numbers", () => {\n    expect(add(1, 2)).toBe(3)\n  })\n\n', ""),
  "py-remove": (f) =>
    edit(f, "test_calc.py", "def test_adds_negative_numbers():\n    assert add(-1, -2) == -3\n\n\n", ""),
  "go-remove": (f) =>
    edit(
      f,
      "go/calc_test.go",
      'func TestAddSmallNumbers(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", got)\n\t}\n}\n\n',
      "",
    ),
  "rust-remove": (f) =>
    edit(
      f,
      "rust/src/lib.rs",
      "    #[test]\n    fn adds_small_numbers() {\n        assert_eq!(add(1, 2), 3);\n    }\n\n",
      "",
    ),
  "test-file-deleted": (f) => (f["test_calc.py"] = null),
  // Refused: what a check runs changed.
  "npm-test-script": (f) => edit(f, "package.json", '"test": "vitest run"', '"test": "echo ok"'),
  "pretest-script": (f) => edit(f, "package.json", '"build": "tsc -p ."', '"build": "true"'),
  "vitest-config": (f) =>
    edit(
      f,
      "vitest.config.ts",
      'include: ["test/**/*.test.js"],',
      'include: ["test/**/*.test.js"],\n    exclude: ["test/calc.test.js"],',
    ),
  "pyproject-pytest": (f) =>
    edit(f, "pyproject.toml", 'addopts = "-ra"', 'addopts = "-ra --deselect test_calc.py::test_adds_negative_numbers"'),
  "tsconfig-strict": (f) => edit(f, "tsconfig.json", '"strict": true', '"strict": false'),
  "eslint-config": (f) => edit(f, "eslint.config.js", '"no-unused-vars": "error"', '"no-unused-vars": "off"'),
  "vitest-config-renamed": { mv: [["vitest.config.ts", "vitest.config.ts.off"]] },
  "loop-checks": (f) => edit(f, ".opencode/ralph-loop.jsonc", '"command": "npm test"', '"command": "true"'),
  // Refused: suppressions added.
  suppressions: (f) => {
    edit(f, "src/app.ts", "export function total", "// @ts-ignore\nexport function total")
    edit(f, "src/app.ts", "  return values", "  // eslint-disable-next-line no-unused-vars\n  return values")
    edit(f, "app.py", "from calc import add", "from calc import add  # noqa: F401")
    edit(f, "app.py", "    return sum(values)", "    return sum(values)  # type: ignore[arg-type]")
    edit(f, "rust/src/lib.rs", "pub fn add", "#[allow(dead_code)]\npub fn add")
  },
  // Listed, not refused: an expectation changed.
  expectation: (f) => {
    edit(f, "test/calc.test.js", "expect(multiply(3, 4)).toBe(12)", "expect(multiply(3, 4)).toBe(0)")
    edit(f, "test_calc.py", "assert add(1, 2) == 3", "assert add(1, 2) == 4")
  },
  // Ordinary work: no finding.
  "add-tests": (f) => {
    edit(
      f,
      "test/calc.test.js",
      '  test.todo("adds fractions")\n',
      '  test.todo("adds fractions")\n  test.todo("adds big numbers")\n\n  test("adds zero", () => {\n    expect(add(0, 0)).toBe(0)\n  })\n',
    )
    f["test_calc.py"] += "\n\ndef test_adds_large_numbers():\n    assert add(10**9, 1) == 10**9 + 1\n"
    // New tests added skipped: they never ran, so nothing ran at the start is skipped.
    f["test_calc.py"] +=
      '\n\n@pytest.mark.skip(reason="needs bignum")\ndef test_adds_huge_numbers():\n    assert add(10**99, 1) > 0\n'
    f["go/calc_test.go"] += '\nfunc TestAddHuge(t *testing.T) {\n\tt.Skip("needs big.Int")\n}\n'
    edit(
      f,
      "rust/src/lib.rs",
      "    #[test]\n    fn adds_small_numbers",
      "    #[test]\n    #[ignore]\n    fn adds_huge_numbers() {}\n\n    #[test]\n    fn adds_small_numbers",
    )
    edit(
      f,
      "go/calc_test.go",
      "func TestAddNegativeNumbers",
      'func TestAddZero(t *testing.T) {\n\tif got := Add(0, 0); got != 0 {\n\t\tt.Errorf("Add(0, 0) = %d", got)\n\t}\n}\n\nfunc TestAddNegativeNumbers',
    )
    edit(
      f,
      "rust/src/lib.rs",
      "    #[test]\n    fn adds_negative_numbers",
      "    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n\n    #[test]\n    fn adds_negative_numbers",
    )
  },
  "rename-test-file": {
    mv: [
      ["test/calc.test.js", "test/arithmetic.test.js"],
      ["test_calc.py", "test_arithmetic.py"],
    ],
    noRenames: true,
  },
  "edit-around-assertions": (f) => {
    edit(
      f,
      "test/calc.test.js",
      "    const sum = add(-1, -2)\n",
      "    const first = -1\n    const sum = add(first, -2)\n",
    )
    // A test moved into a describe of its own: its lines indented, its assertion unchanged.
    edit(
      f,
      "test/calc.test.js",
      '  test("adds small numbers", () => {\n    expect(add(1, 2)).toBe(3)\n  })\n',
      '  describe("small", () => {\n    test("adds small numbers", () => {\n      expect(add(1, 2)).toBe(3)\n    })\n  })\n',
    )
    edit(
      f,
      "test_calc.py",
      "def test_adds_small_numbers():\n",
      "def test_adds_small_numbers():\n    # the smallest case first\n",
    )
    // An assertion run twice in a loop: indented, unchanged.
    edit(
      f,
      "test_calc.py",
      "    assert add(-1, -2) == -3\n",
      "    for _ in range(2):\n        assert add(-1, -2) == -3\n",
    )
    edit(f, "go/calc_test.go", "\twant := -3\n", "\t// the sum of two negatives\n\twant := -3\n")
  },
  "unrelated-files": (f) => {
    edit(f, "src/calc.js", "export const add = (a, b) => a + b", "export const add = (a, b) => Number(a) + Number(b)")
    edit(f, "README.md", "Adds numbers.", "Adds and multiplies numbers.")
    edit(f, "package.json", '"version": "1.0.0"', '"version": "1.1.0"')
    edit(f, "package.json", '"vitest": "4.1.12"', '"vitest": "4.1.12",\n    "typescript": "5.9.3"')
    edit(f, "pyproject.toml", 'version = "1.0.0"', 'version = "1.1.0"')
    edit(f, "pyproject.toml", "line-length = 100", "line-length = 120")
    edit(f, "tsconfig.json", '"outDir": "dist"', '"outDir": "build"')
  },
}

function git(cwd, ...args) {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  })
}

function write(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    const target = join(dir, path)
    if (text === null) rmSync(target, { force: true })
    else {
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, text)
    }
  }
}

function make(name, scenario) {
  const dir = mkdtempSync(join(tmpdir(), "ralph-guard-fixture-"))
  try {
    git(dir, "init", "-q", "-b", "main")
    git(dir, "config", "user.email", "fixture@example.com")
    git(dir, "config", "user.name", "fixture")
    write(dir, PROJECT)
    git(dir, "add", "-A")
    git(dir, "commit", "-q", "-m", "start checkpoint")
    const start = git(dir, "rev-parse", "HEAD").trim()
    const files = Object.fromEntries(Object.entries(PROJECT))
    if (typeof scenario === "function") scenario(files)
    else for (const [from, to] of scenario.mv) git(dir, "mv", from, to)
    if (typeof scenario === "function")
      write(dir, Object.fromEntries(Object.entries(files).filter(([path, text]) => text !== PROJECT[path])))
    git(dir, "add", "-A")
    git(dir, "commit", "-q", "-m", "checkpoint now")
    const diff = (...flags) => git(dir, "diff", "--no-color", "--no-ext-diff", ...flags, start, "HEAD")
    writeFileSync(join(out, `${name}.diff`), diff("-M"))
    if (scenario.noRenames) writeFileSync(join(out, `${name}.no-renames.diff`), diff("--no-renames"))
    // The whole texts the caller reads when the diff touches them: pyproject.toml's sections, package.json's scripts.
    const texts = {}
    for (const path of ["pyproject.toml", "package.json"]) {
      const after = readFileSync(join(dir, path), "utf8")
      if (after !== PROJECT[path]) texts[path] = { before: PROJECT[path], after }
    }
    if (Object.keys(texts).length) writeFileSync(join(out, `${name}.texts.json`), `${JSON.stringify(texts, null, 2)}\n`)
    process.stdout.write(`${name}: ${diff("-M").length} characters\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
for (const [name, scenario] of Object.entries(SCENARIOS)) make(name, scenario)
writeFileSync(
  join(out, "README.md"),
  `# Diffs the guard reads

Made by \`node scripts/make-guard-fixtures.mjs\` with the real git (${git(root, "--version").trim()}): each
scenario's edit on a small project, as \`git diff --no-color --no-ext-diff -M <start> <now>\` between
two commits (the loop's start checkpoint and the work tree now); \`*.no-renames.diff\` with
\`--no-renames\` instead. \`*.texts.json\`: the whole texts of pyproject.toml and package.json before and after where the
scenario changed them, which the guard is given for the section a hunk starts in and for the
scripts a check runs. Never edit them by hand. \`test/unit/evidence-guard.test.ts\` reads them.
`,
)
