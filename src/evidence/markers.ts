// The markers the guard looks for on an added line: a test skipped or focused, and a suppression of
// a linter's or type checker's finding. Each is found with indexOf and a bounded look around it,
// never a pattern that backtracks. Pure.
import type { Language } from "./files.js"

const isWord = (c: string | undefined): boolean => c !== undefined && /[\w$]/.test(c)

// JS/TS: `test.skip(`, `it.only(`, `describe.todo(`, `test.concurrent.skip(`, `it.skipIf(…)(`, and
// Jasmine/Jest's `xit(`, `xtest(`, `xdescribe(`, `fit(`, `fdescribe(`.
const JS_SUBJECTS = ["test", "it", "describe", "suite", "context", "bench"]
const JS_MODIFIERS = new Set(["skip", "only", "todo", "skipIf"])
const JS_CALLS = ["xit(", "xtest(", "xdescribe(", "fit(", "fdescribe(", "xcontext("]

function jsMarker(text: string): string | undefined {
  for (const call of JS_CALLS) {
    for (let at = text.indexOf(call); at >= 0; at = text.indexOf(call, at + 1)) {
      // A test's call names it first: `fit("…"`, not `fit(model)`.
      let arg = at + call.length
      while (text[arg] === " ") arg += 1
      const quoted = text[arg] === '"' || text[arg] === "'" || text[arg] === "`"
      if (quoted && !isWord(text[at - 1]) && text[at - 1] !== ".") return call.slice(0, -1)
    }
  }
  for (const subject of JS_SUBJECTS) {
    const needle = `${subject}.`
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      if (isWord(text[at - 1]) || text[at - 1] === ".") continue
      // Up to three modifiers after it: `test.concurrent.skip`.
      let end = at + needle.length
      for (let step = 0; step < 3; step += 1) {
        let stop = end
        while (stop < text.length && stop - end < 16 && isWord(text[stop])) stop += 1
        const word = text.slice(end, stop)
        if (JS_MODIFIERS.has(word)) return `${text.slice(at, stop)}`
        if (text[stop] !== ".") break
        end = stop + 1
      }
    }
  }
  return undefined
}

const PY_MARKERS = [
  "pytest.mark.skip",
  "pytest.mark.xfail",
  "pytest.skip(",
  "pytest.xfail(",
  "unittest.skip",
  ".skipTest(",
]
const GO_MARKERS = [".Skip(", ".Skipf(", ".SkipNow("]
const RS_MARKERS = ["#[ignore"]
// How each is named in a finding.
const NAMES: Record<string, string> = {
  ".Skip(": "t.Skip",
  ".Skipf(": "t.Skipf",
  ".SkipNow(": "t.SkipNow",
  "#[ignore": "#[ignore]",
  ".skipTest(": "skipTest",
}

/** The skip or focus marker on a line of code, if any (`test.skip`, `@pytest.mark.skip`, `t.Skip(`, `#[ignore` …). */
export function skipMarker(text: string, language: Language, testFile: boolean): string | undefined {
  const found = (markers: readonly string[]) => {
    const marker = markers.find((m) => text.includes(m))
    return marker && (NAMES[marker] ?? (marker.endsWith("(") ? marker.slice(0, -1) : marker))
  }
  switch (language) {
    case "js":
      return jsMarker(text)
    case "py":
      return found(PY_MARKERS)
    case "go":
      return testFile ? found(GO_MARKERS) : undefined
    case "rs":
      return found(RS_MARKERS)
  }
}

// Compared with the line lowercased and without blanks: `# type: ignore[attr]`, `#NOQA: E501`.
const SUPPRESSIONS = [
  ["@ts-ignore", "@ts-ignore"],
  ["@ts-nocheck", "@ts-nocheck"],
  ["@ts-expect-error", "@ts-expect-error"],
  ["eslint-disable", "eslint-disable"],
  ["biome-ignore", "biome-ignore"],
  ["#type:ignore", "# type: ignore"],
  ["#pyright:ignore", "# pyright: ignore"],
  ["#noqa", "# noqa"],
  ["#[allow(", "#[allow(…)]"],
  ["#![allow(", "#![allow(…)]"],
  ["//nolint", "//nolint"],
] as const

/** The suppression on a line of code, if any, named as it is usually written. */
export function suppression(text: string): string | undefined {
  const squeezed = text.replace(/[ \t]/g, "").toLowerCase()
  return SUPPRESSIONS.find(([needle]) => squeezed.includes(needle))?.[1]
}
