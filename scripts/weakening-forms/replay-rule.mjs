// The replay tree of /work/notes/replay-spec.md (issue 46), as h-corpus read the rule, written from the text of
// the rule and from no code: the END's files, with every START file of the test surface put back (also when the
// end deleted or renamed it), minus the END's surface files new in the loop, with package.json, pyproject.toml
// and Cargo.toml merged. Trees are Maps of path -> text. The fixtures record what this gives, so that the
// test can hold src/replay/plan.ts to it.

const JS_EXT = ["js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"]
const SEGMENTS = new Set(
  "test tests spec __tests__ __mocks__ __snapshots__ __fixtures__ fixtures testdata benches testutil testutils test-utils test_utils test-helpers test_helpers".split(
    " ",
  ),
)
const SETUP = "setupTests setup-tests test-setup test-utils test_utils jest.setup vitest.setup".split(" ")
const CONFIG_PREFIX = (
  "vitest.config. vitest.workspace. vitest.projects. vite.config. jest.config. jest.preset. babel.config. .babelrc " +
  ".mocharc karma.conf. playwright.config. cypress.config. .nycrc .c8rc ava.config. eslint.config. .eslintrc " +
  ".prettierrc prettier.config."
).split(" ")
const CONFIG_EXACT = new Set(
  (
    "biome.json biome.jsonc .swcrc pytest.ini tox.ini setup.cfg noxfile.py .coveragerc mypy.ini .mypy.ini .flake8 " +
    "ruff.toml .ruff.toml pyrightconfig.json Makefile makefile GNUmakefile justfile Justfile clippy.toml .clippy.toml " +
    "rustfmt.toml .golangci.yml .golangci.yaml"
  ).split(" "),
)
const SCRIPT_EXT = new Set(["sh", "bash", "mjs", "js", "cjs", "ts", "py"])
const MERGED = new Set(["package.json", "pyproject.toml", "Cargo.toml"])
const PACKAGE_KEYS = "scripts jest mocha ava c8 nyc tap eslintConfig prettier babel vitest".split(" ")
const PYPROJECT_PREFIXES = "tool.pytest tool.coverage tool.mypy tool.ruff tool.pyright tool.tox tool.hatch.envs".split(
  " ",
)
const CARGO_SECTIONS = new Set(["lib", "test", "bench", "example", "profile.test", "profile.bench", "features"])

const baseName = (path) => path.slice(path.lastIndexOf("/") + 1)
const extension = (name) => (name.lastIndexOf(".") > 0 ? name.slice(name.lastIndexOf(".") + 1) : "")

/** Rules 1 to 4: a surface file by its path alone. */
export function surfaceByPath(path) {
  const name = baseName(path)
  const ext = extension(name)
  const stem = ext ? name.slice(0, -(ext.length + 1)) : name
  if (JS_EXT.includes(ext) && (stem.endsWith(".test") || stem.endsWith(".spec"))) return true
  if (ext === "py" && (name.startsWith("test_") || stem.endsWith("_test") || name === "conftest.py")) return true
  if (name.endsWith("_test.go") || ext === "snap") return true
  if (
    path
      .split("/")
      .slice(0, -1)
      .some((segment) => SEGMENTS.has(segment))
  )
    return true
  if (SETUP.some((setup) => name === setup || name.startsWith(`${setup}.`))) return true
  if (CONFIG_PREFIX.some((prefix) => name.startsWith(prefix)) || CONFIG_EXACT.has(name)) return true
  if ((name.startsWith("tsconfig") || name.startsWith("jsconfig")) && name.endsWith(".json")) return true
  return path.endsWith(".cargo/config.toml") || path.endsWith(".cargo/config") || path === ".cargo/config"
}

const tokens = (text) =>
  text
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => token.replace(/["'`]/g, ""))
    .map((token) => (token.startsWith("./") ? token.slice(2) : token))

/** The package.json scripts a token sequence names at `i` (npm test, npm run X, pnpm X, yarn X, bun run X). */
function scriptNamed(list, i) {
  const [tool, next, after] = [list[i], list[i + 1], list[i + 2]]
  if (tool === "npm") {
    if (next === "test" || next === "t") return "test"
    if (next === "run" || next === "run-script") return after
  }
  if (tool === "pnpm" || tool === "yarn") return next === "run" ? after : next
  if (tool === "bun" && next === "run") return after
  return undefined
}

/** Rule 5: the START files a check's command calls, followed through package.json scripts and script files. */
export function calledFiles(commands, start) {
  const found = new Set()
  let scripts = {}
  try {
    scripts = JSON.parse(start.get("package.json") ?? "{}").scripts ?? {}
  } catch {}
  const seenScripts = new Set()
  const visit = (text, depth) => {
    if (depth > 3) return
    const list = tokens(text)
    for (const [i, token] of list.entries()) {
      if (token === "make") for (const m of ["GNUmakefile", "makefile", "Makefile"]) if (start.has(m)) named(m, depth)
      if (start.has(token)) named(token, depth)
      const script = scriptNamed(list, i)
      if (script === undefined) continue
      for (const name of [`pre${script}`, script, `post${script}`])
        if (typeof scripts[name] === "string" && !seenScripts.has(name)) {
          seenScripts.add(name)
          visit(scripts[name], depth)
        }
    }
  }
  const named = (path, depth) => {
    if (found.has(path)) return
    found.add(path)
    const ext = extension(baseName(path))
    if (ext === "" || SCRIPT_EXT.has(ext)) visit(start.get(path), depth + 1)
  }
  for (const command of commands) visit(command, 0)
  return found
}

/** TOML text cut at its table headers: the part before the first, then one part per header, with its name. */
function sections(text) {
  const parts = [{ name: undefined, lines: [] }]
  for (const line of text.split("\n")) {
    // a header starts its line (an array's continuation line is indented, or is read as a header: a known limit)
    if (line.startsWith("[")) {
      const name = line.replace(/^\[+/, "").replace(/\].*$/, "").trim()
      parts.push({ name, lines: [line] })
    } else parts.at(-1).lines.push(line)
  }
  return parts
}

/** The end's TOML with the start's sections of `owned` put back, and such sections new at the end removed. */
function mergeToml(startText, endText, owned) {
  const endParts = sections(endText)
  const startOwned = startText === undefined ? [] : sections(startText).filter((p) => p.name && owned(p.name))
  const kept = endParts.filter((p) => !(p.name && owned(p.name)))
  const endOwned = endParts.filter((p) => p.name && owned(p.name))
  const same = (a, b) => a.map((p) => p.lines.join("\n")).join("\n") === b.map((p) => p.lines.join("\n")).join("\n")
  if (same(startOwned, endOwned)) return { text: endText, parts: [] }
  const body = kept.flatMap((p) => p.lines).join("\n")
  const back = startOwned.map((p) => p.lines.join("\n").replace(/\n+$/, "")).join("\n\n")
  const text = back ? `${body.replace(/\n+$/, "")}\n\n${back}\n` : `${body.replace(/\n+$/, "")}\n`
  const names = [...new Set([...startOwned, ...endOwned].map((p) => p.name))]
  return {
    text,
    parts: names.filter(
      (n) =>
        !same(
          startOwned.filter((p) => p.name === n),
          endOwned.filter((p) => p.name === n),
        ),
    ),
  }
}

function mergePackage(startText, endText) {
  let start
  let end
  try {
    start = startText === undefined ? {} : JSON.parse(startText)
    end = JSON.parse(endText)
  } catch {
    return { text: startText ?? endText, parts: ["(unreadable: put back whole)"] }
  }
  const parts = PACKAGE_KEYS.filter((key) => JSON.stringify(start[key]) !== JSON.stringify(end[key]))
  if (parts.length === 0) return { text: endText, parts }
  const merged = { ...end }
  for (const key of parts) {
    if (key in start) merged[key] = start[key]
    else delete merged[key]
  }
  return { text: `${JSON.stringify(merged, null, 2)}\n`, parts }
}

function merge(path, startText, endText) {
  if (baseName(path) === "package.json") return mergePackage(startText, endText)
  if (baseName(path) === "pyproject.toml")
    return mergeToml(startText, endText, (name) => PYPROJECT_PREFIXES.some((prefix) => name.startsWith(prefix)))
  return mergeToml(startText, endText, (name) => CARGO_SECTIONS.has(name))
}

/**
 * The replay tree and how it was made: `restored` (start files put back, changed or gone at the end), `leftOut`
 * (surface files new in the loop), `merged` (with the top-level keys or TOML sections put back), and `notNeeded`
 * when the replay tree is the end's tree.
 */
export function planReplay(start, end, commands) {
  const called = calledFiles(commands, start)
  const tree = new Map(end)
  const restored = []
  const leftOut = []
  const merged = {}
  for (const [path, text] of start) {
    if (MERGED.has(baseName(path)) && end.has(path)) {
      const result = merge(path, text, end.get(path))
      if (result.text !== end.get(path)) {
        tree.set(path, result.text)
        merged[path] = result.parts
      }
    } else if ((surfaceByPath(path) || called.has(path) || MERGED.has(baseName(path))) && end.get(path) !== text) {
      tree.set(path, text)
      restored.push(path)
    }
  }
  for (const [path, text] of end) {
    if (start.has(path)) continue
    if (MERGED.has(baseName(path))) {
      const result = merge(path, undefined, text)
      if (result.text !== text) {
        tree.set(path, result.text)
        merged[path] = result.parts
      }
    } else if (surfaceByPath(path)) {
      tree.delete(path)
      leftOut.push(path)
    }
  }
  const notNeeded = restored.length === 0 && leftOut.length === 0 && Object.keys(merged).length === 0
  return { tree, restored: restored.sort(), leftOut: leftOut.sort(), merged, notNeeded }
}
