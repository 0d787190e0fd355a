// What a changed file is to the guard: its language (for the markers and test names it may hold),
// and whether it is a test file. By its path alone. Pure.

export type Language = "js" | "py" | "go" | "rs"

const EXTENSIONS: Record<string, Language> = {
  js: "js",
  jsx: "js",
  mjs: "js",
  cjs: "js",
  ts: "js",
  tsx: "js",
  mts: "js",
  cts: "js",
  vue: "js",
  svelte: "js",
  py: "py",
  pyi: "py",
  go: "go",
  rs: "rs",
}

export const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/** The code's language, from the file's extension (undefined: no code the guard reads). */
export function languageOf(path: string): Language | undefined {
  const name = baseName(path)
  const dot = name.lastIndexOf(".")
  return dot > 0 ? EXTENSIONS[name.slice(dot + 1).toLowerCase()] : undefined
}

const TEST_FOLDERS = new Set(["test", "tests", "__tests__", "spec", "specs", "testing"])

/** A test file as runners find them: `*.test.*`, `*.spec.*`, `test_*.py`, `*_test.py`, `*_test.go`, in `test/` … */
export function isTestFile(path: string): boolean {
  const language = languageOf(path)
  if (!language) return false
  const name = baseName(path)
  if (name.includes(".test.") || name.includes(".spec.")) return true
  const pytestFile = name.startsWith("test_") || name.endsWith("_test.py") || name === "conftest.py"
  if (language === "py" && pytestFile) return true
  if (language === "go") return name.endsWith("_test.go")
  return path
    .split("/")
    .slice(0, -1)
    .some((folder) => TEST_FOLDERS.has(folder))
}
