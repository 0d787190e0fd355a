// The files that decide what a check runs or reports, besides the code it checks: a test runner's
// config, a linter's or type checker's, the loop's own settings. Some count whole; in pyproject.toml
// and setup.cfg only their runner's and linters' sections; in tsconfig*.json only the options that
// make it stricter or looser. By path and line. Pure.
import { baseName } from "./files.js"

/** What a config file is to the checks, or undefined when the checks do not read it. */
export type CheckFile =
  | { what: string; scope: "whole" }
  | { what: string; scope: "sections"; sections: (section: string) => boolean }
  | { what: string; scope: "strictness" }

const starts = (name: string, ...prefixes: string[]) => prefixes.some((p) => name.startsWith(p))

// pyproject.toml: [tool.pytest.ini_options], [tool.ruff], [tool.ruff.lint…], [tool.mypy], [[tool.mypy.overrides]].
const PYPROJECT = (section: string) =>
  ["tool.pytest", "tool.ruff", "tool.mypy"].some((s) => section === s || section.startsWith(`${s}.`))
// setup.cfg: [tool:pytest], [mypy], [mypy-package.*], [flake8].
const SETUP_CFG = (section: string) =>
  section === "tool:pytest" || section === "mypy" || section.startsWith("mypy-") || section === "flake8"

const whole = (what: string): CheckFile => ({ what, scope: "whole" })

export function checkFile(path: string): CheckFile | undefined {
  const name = baseName(path)
  if (path === ".opencode/ralph-loop.jsonc" || path === ".opencode/ralph-loop.json") return whole("the loop's checks")
  if (starts(name, "vitest.config.", "vitest.workspace.", "vite.config.")) return whole("vitest's config")
  if (starts(name, "jest.config.")) return whole("jest's config")
  if (starts(name, ".mocharc")) return whole("mocha's config")
  if (name === "pytest.ini" || name === "conftest.py") return whole("pytest's config")
  if (name === "tox.ini") return whole("tox's and pytest's config")
  if (starts(name, "eslint.config.", ".eslintrc") || name === ".eslintignore") return whole("ESLint's config")
  if (name === "ruff.toml" || name === ".ruff.toml") return whole("ruff's config")
  if (name === "mypy.ini" || name === ".mypy.ini") return whole("mypy's config")
  if (name === ".flake8") return whole("flake8's config")
  if (name === "pyproject.toml") {
    return { what: "the pytest, ruff or mypy section of pyproject.toml", scope: "sections", sections: PYPROJECT }
  }
  if (name === "setup.cfg") {
    return { what: "the pytest, mypy or flake8 section of setup.cfg", scope: "sections", sections: SETUP_CFG }
  }
  if (name.startsWith("tsconfig") && name.endsWith(".json")) {
    return { what: "the TypeScript compiler's strictness", scope: "strictness" }
  }
  return undefined
}

/** `[tool.pytest.ini_options]` → `tool.pytest.ini_options`, `[[tool.mypy.overrides]]` → `tool.mypy.overrides`. */
export function sectionHeader(text: string): string | undefined {
  const line = text.trim()
  if (!line.startsWith("[") || !line.endsWith("]")) return undefined
  let start = 0
  let end = line.length
  while (line[start] === "[" && start < 2) start += 1
  while (line[end - 1] === "]" && line.length - end < 2) end -= 1
  return start < end ? line.slice(start, end).trim() : undefined
}

/** The section that line `line` (1-based) of a whole file's text sits in ("" before the first header). */
export function sectionAt(text: string, line: number): string {
  let section = ""
  let number = 0
  let from = 0
  while (from <= text.length && number < line) {
    const end = text.indexOf("\n", from)
    const header = sectionHeader(text.slice(from, end < 0 ? text.length : end))
    if (header !== undefined) section = header
    number += 1
    if (end < 0) break
    from = end + 1
  }
  return section
}

const STRICT_KEYS = new Set([
  "strict",
  "alwaysStrict",
  "exactOptionalPropertyTypes",
  "noFallthroughCasesInSwitch",
  "noPropertyAccessFromIndexSignature",
  "useUnknownInCatchVariables",
  "allowUnreachableCode",
  "allowUnusedLabels",
  "skipLibCheck",
  "checkJs",
  "noEmitOnError",
  "extends",
  "include",
  "exclude",
  "files",
])

/** A tsconfig line that sets how strict the compiler is (`"strict": false`, `"noImplicitAny": …`). */
export function isStrictnessLine(text: string): boolean {
  const line = text.trim()
  const start = line.indexOf('"')
  const end = start < 0 ? -1 : line.indexOf('"', start + 1)
  if (start !== 0 || end < 0) return false
  const key = line.slice(1, end)
  return STRICT_KEYS.has(key) || starts(key, "strict", "noImplicit", "noUnused", "noUnchecked")
}
