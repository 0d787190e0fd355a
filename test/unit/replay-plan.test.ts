// The replay's plan (issue 46): which files of the start's test surface go back, which new ones are
// left out, which three files are merged — classified from the trees, never from a diff.
import { describe, expect, it } from "vitest"
import { planReplay, type TreeEntry } from "../../src/replay/plan.js"
import { surfaceKind } from "../../src/replay/surface.js"

type Files = Record<string, string>

/** A listing whose object ids are the texts themselves (any id that changes with the content will do). */
const listing = (files: Files) =>
  new Map<string, TreeEntry>(Object.entries(files).map(([p, t]) => [p, { mode: "100644", oid: t }]))

const plan = (start: Files, end: Files, commands = ["npm test"]) =>
  planReplay({
    start: listing(start),
    end: listing(end),
    commands,
    text: async (side, path) => (side === "start" ? start : end)[path],
  })

describe("the test surface, by the runners' conventions", () => {
  it.each([
    ["src/sum.test.ts", "test"],
    ["src/sum.spec.mjs", "test"],
    ["tests/helpers/assert.py", "test"],
    ["pkg/test_sum.py", "test"],
    ["pkg/sum_test.py", "test"],
    ["conftest.py", "test"],
    ["sum_test.go", "test"],
    ["testdata/golden.txt", "test"],
    ["src/__snapshots__/sum.test.ts.snap", "test"],
    ["src/__mocks__/sum.ts", "test"],
    ["vitest.config.mts", "config"],
    ["jest.config.cjs", "config"],
    [".mocharc.yml", "config"],
    ["tsconfig.build.json", "config"],
    ["pytest.ini", "config"],
    ["Makefile", "config"],
    [".cargo/config.toml", "config"],
  ])("%s is %s surface", (path, kind) => {
    expect(surfaceKind(path)).toBe(kind)
  })

  it.each(["src/sum.ts", "src/testing.ts", "sum.py", "README.md", "package.json", "src/contest.py", "lib/latest/a.js"])(
    "%s is not",
    (path) => {
      expect(surfaceKind(path)).toBeUndefined()
    },
  )
})

describe("planReplay", () => {
  it("is not needed when the loop changed only the code", async () => {
    const start = { "src/sum.ts": "bug", "src/sum.test.ts": "expect 3" }
    expect(await plan(start, { ...start, "src/sum.ts": "fixed" })).toEqual({
      needed: false,
      putBack: [],
      leftOut: [],
      merged: [],
    })
  })

  it("puts back a changed test, and a test renamed away; leaves out the new one", async () => {
    const start = { "src/sum.ts": "bug", "src/sum.test.ts": "expect 3", "src/old.test.ts": "old" }
    const end = { "src/sum.ts": "bug", "src/sum.test.ts": "expect 0", "src/new.test.ts": "trivial" }
    expect(await plan(start, end)).toMatchObject({
      needed: true,
      putBack: ["src/old.test.ts", "src/sum.test.ts"],
      leftOut: ["src/new.test.ts"],
    })
  })

  it("puts back a script the check calls, found through package.json's scripts and a Makefile", async () => {
    const start = {
      "package.json": JSON.stringify({ scripts: { test: "make check" } }),
      Makefile: "check:\n\tbash scripts/run.sh\n",
      "scripts/run.sh": "node --test\n",
    }
    const end = { ...start, "scripts/run.sh": "node --test || true\n" }
    expect((await plan(start, end)).putBack).toEqual(["scripts/run.sh"])
  })

  it("merges package.json: the start's scripts and runner keys, the end's dependencies", async () => {
    const start = {
      "package.json": JSON.stringify({ scripts: { test: "jest" }, jest: { bail: true }, dependencies: {} }),
    }
    const end = {
      "package.json": JSON.stringify({
        scripts: { test: "jest --passWithNoTests" },
        jest: { testPathIgnorePatterns: ["sum"] },
        dependencies: { lodash: "4" },
      }),
    }
    const { merged, putBack } = await plan(start, end)
    expect(putBack).toEqual([])
    expect(merged.map((m) => m.path)).toEqual(["package.json"])
    expect(JSON.parse(merged[0]!.text)).toEqual({
      scripts: { test: "jest" },
      jest: { bail: true },
      dependencies: { lodash: "4" },
    })
  })

  it("leaves package.json alone when only its dependencies changed", async () => {
    const start = { "package.json": JSON.stringify({ scripts: { test: "vitest run" } }) }
    const end = { "package.json": JSON.stringify({ scripts: { test: "vitest run" }, dependencies: { zod: "4" } }) }
    expect((await plan(start, end)).needed).toBe(false)
  })

  it("merges pyproject.toml's pytest section back, keeping the end's dependencies", async () => {
    const start = { "pyproject.toml": '[project]\nname = "a"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n' }
    const end = {
      "pyproject.toml":
        '[project]\nname = "a"\ndependencies = ["x"]\n\n[tool.pytest.ini_options]\naddopts = "-q --deselect t.py::test_a"\n',
    }
    const { merged } = await plan(start, end, ["pytest"])
    expect(merged[0]?.text).toContain('dependencies = ["x"]')
    expect(merged[0]?.text).toContain('addopts = "-q"\n')
    expect(merged[0]?.text).not.toContain("--deselect")
  })

  it("merges Cargo.toml's [[test]] targets back", async () => {
    const start = { "Cargo.toml": '[package]\nname = "a"\n' }
    const end = { "Cargo.toml": '[package]\nname = "a"\n\n[[test]]\nname = "it"\nharness = false\n' }
    const { merged } = await plan(start, end, ["cargo test"])
    expect(merged[0]?.text).not.toContain("harness")
  })
})

describe("a change the user accepted", () => {
  it("is replayed as the end has it: a skip accepted by its key is not put back", async () => {
    const start = { "src/sum.test.ts": 'test("adds", …)' }
    const end = { "src/sum.test.ts": 'test.skip("adds", …)' }
    const accepted = await planReplay({
      start: listing(start),
      end: listing(end),
      commands: ["npm test"],
      text: async () => undefined,
      keep: ["src/sum.test.ts"],
    })
    expect(accepted.needed).toBe(false)
    expect((await plan(start, end)).putBack).toEqual(["src/sum.test.ts"])
  })
})
