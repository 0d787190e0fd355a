// The test surface (issue 46): the files that decide what the user's tests check — the tests
// themselves, their helpers, fixtures and snapshots, and the runners' and checks' configs — told
// apart by path alone, by each runner's documented conventions. The replay puts the start's surface
// back, so the tests the user had judge the code the loop ends with. Pure; linear in the path.

const SCRIPT_EXTENSIONS = ["js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"]

/** Directory names whose whole subtree is test surface, wherever they sit in the path. */
const SURFACE_DIRS = new Set([
  "test",
  "tests",
  "spec",
  "__tests__",
  "__mocks__",
  "__snapshots__",
  "__fixtures__",
  "fixtures",
  "testdata",
  "benches",
  "testutil",
  "testutils",
  "test-utils",
  "test_utils",
  "test-helpers",
  "test_helpers",
])

/** Test set-up files, by their name before the first dot. */
const SETUP_STEMS = new Set(["setupTests", "setup-tests", "test-setup", "test-utils", "test_utils"])

/** Configs whose name before the first dot decides (any extension: `vitest.config.mts`). */
const CONFIG_STEMS = new Set([
  "vitest",
  "vite",
  "jest",
  "babel",
  "karma",
  "playwright",
  "cypress",
  "ava",
  "prettier",
  "eslint",
])
/** The second part of those names: `vitest.config.ts`, `vitest.workspace.ts`, `jest.setup.js`. */
const CONFIG_KINDS = new Set(["config", "workspace", "projects", "setup", "preset", "conf"])

/** Configs named exactly, or by a prefix (`.eslintrc.json`, `tsconfig.build.json`). */
const CONFIG_NAMES = new Set([
  "biome.json",
  "biome.jsonc",
  ".swcrc",
  "pytest.ini",
  "tox.ini",
  "setup.cfg",
  "noxfile.py",
  ".coveragerc",
  "mypy.ini",
  ".mypy.ini",
  ".flake8",
  "ruff.toml",
  ".ruff.toml",
  "pyrightconfig.json",
  "Makefile",
  "makefile",
  "GNUmakefile",
  "justfile",
  "Justfile",
  "clippy.toml",
  ".clippy.toml",
  "rustfmt.toml",
  ".rustfmt.toml",
  ".golangci.yml",
  ".golangci.yaml",
  ".golangci.toml",
])
const CONFIG_PREFIXES = [".babelrc", ".mocharc", ".nycrc", ".c8rc", ".eslintrc", ".prettierrc"]

/** Files merged rather than put back whole (merge.ts): the start's parts that drive the tests. */
export const MERGED_FILES = new Set(["package.json", "pyproject.toml", "Cargo.toml"])

export type SurfaceKind = "test" | "config"

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

function isTestFileName(name: string): boolean {
  if (name.endsWith(".snap")) return true
  if (name.endsWith(".py")) return name.startsWith("test_") || name.endsWith("_test.py") || name === "conftest.py"
  if (name.endsWith("_test.go")) return true
  const parts = name.split(".")
  if (parts.length < 3) return false
  const extension = parts[parts.length - 1] ?? ""
  const marker = parts[parts.length - 2]
  return (marker === "test" || marker === "spec") && SCRIPT_EXTENSIONS.includes(extension)
}

function isConfigName(name: string, path: string): boolean {
  if (CONFIG_NAMES.has(name)) return true
  if (CONFIG_PREFIXES.some((prefix) => name.startsWith(prefix))) return true
  if ((name.startsWith("tsconfig") || name.startsWith("jsconfig")) && name.endsWith(".json")) return true
  if (path === ".cargo/config.toml" || path === ".cargo/config") return true
  const [stem, kind] = name.split(".")
  return stem !== undefined && kind !== undefined && CONFIG_STEMS.has(stem) && CONFIG_KINDS.has(kind)
}

/** Whether a path (relative to the project, `/`-separated) is test surface, and which kind. */
export function surfaceKind(path: string): SurfaceKind | undefined {
  const name = baseName(path)
  if (isConfigName(name, path)) return "config"
  if (isTestFileName(name)) return "test"
  const stem = name.split(".")[0] ?? ""
  if (SETUP_STEMS.has(stem) && name.includes(".")) return "test"
  const dirs = path.split("/")
  dirs.pop()
  return dirs.some((dir) => SURFACE_DIRS.has(dir)) ? "test" : undefined
}
