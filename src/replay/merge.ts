// The three files the replay merges rather than puts back whole (issue 46): the end's file, with the
// start's parts that drive the tests put back — package.json's scripts and runner keys, the test
// tools' sections of pyproject.toml, the test targets and profiles of Cargo.toml. The rest (a
// dependency the fix added, the package's `type`) stays as the loop left it. Pure; linear.

/** package.json keys that say how tests run. */
const PACKAGE_KEYS = [
  "scripts",
  "jest",
  "mocha",
  "ava",
  "c8",
  "nyc",
  "tap",
  "eslintConfig",
  "prettier",
  "babel",
  "vitest",
]

/** TOML section names whose start's version is put back, by file (a name or a prefix ending in `.`). */
const TOML_SECTIONS: Record<string, readonly string[]> = {
  "pyproject.toml": [
    "tool.pytest",
    "tool.coverage",
    "tool.mypy",
    "tool.ruff",
    "tool.pyright",
    "tool.tox",
    "tool.hatch.envs",
  ],
  "Cargo.toml": ["lib", "test", "bench", "example", "profile.test", "profile.bench", "features"],
}

/** The end's package.json with the start's values of the test keys (a key the start lacks is removed). */
function mergePackageJson(start: string, end: string): string | undefined {
  let before: Record<string, unknown>
  let after: Record<string, unknown>
  try {
    before = JSON.parse(start) as Record<string, unknown>
    after = JSON.parse(end) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (!isObject(before) || !isObject(after)) return undefined
  const same = PACKAGE_KEYS.every((key) => JSON.stringify(before[key]) === JSON.stringify(after[key]))
  if (same) return end
  const merged: Record<string, unknown> = { ...after }
  for (const key of PACKAGE_KEYS) {
    if (key in before) merged[key] = before[key]
    else delete merged[key]
  }
  return `${JSON.stringify(merged, null, 2)}\n`
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

interface Section {
  /** The header's name (`tool.pytest.ini_options`, `test` for `[[test]]`); "" for the lines before any header. */
  name: string
  lines: string[]
}

/** `[a.b]` or `[[a]]` at a line's start: the section's name; undefined for any other line. */
function headerName(line: string): string | undefined {
  const trimmed = line.trim()
  if (!trimmed.startsWith("[")) return undefined
  const close = trimmed.indexOf("]")
  if (close < 0) return undefined
  const inner = trimmed.startsWith("[[") ? trimmed.slice(2, trimmed.indexOf("]]")) : trimmed.slice(1, close)
  return inner.trim().replaceAll('"', "")
}

function sections(text: string): Section[] {
  const all: Section[] = [{ name: "", lines: [] }]
  for (const line of text.split("\n")) {
    const name = headerName(line)
    if (name !== undefined) all.push({ name, lines: [line] })
    else all[all.length - 1]!.lines.push(line)
  }
  return all
}

const drives = (name: string, kept: readonly string[]): boolean =>
  kept.some((k) => name === k || name.startsWith(`${k}.`))

/**
 * The end's TOML text with the sections that drive the tests as the start had them: the end's own
 * such sections go, the start's are added at the end. Undefined for a file not merged this way.
 */
function mergeTomlSections(file: string, start: string, end: string): string | undefined {
  const kept = TOML_SECTIONS[file]
  if (!kept) return undefined
  const ours = sections(end).filter((s) => s.name === "" || !drives(s.name, kept))
  const theirs = sections(start).filter((s) => s.name !== "" && drives(s.name, kept))
  const endTheirs = sections(end).filter((s) => s.name !== "" && drives(s.name, kept))
  const text = (list: Section[]) => list.map((s) => s.lines.join("\n").trimEnd()).join("\n")
  if (text(theirs) === text(endTheirs)) return end
  const body = ours.flatMap((s) => s.lines).join("\n")
  if (theirs.length === 0) return body
  const separated = body.endsWith("\n") ? body : `${body}\n`
  return `${separated}\n${theirs.flatMap((s) => s.lines).join("\n")}`
}

/** The merged text of a file of MERGED_FILES, or undefined when it cannot be merged (then the start's is put back). */
export function mergedText(path: string, start: string, end: string): string | undefined {
  return path === "package.json" ? mergePackageJson(start, end) : mergeTomlSections(path, start, end)
}
