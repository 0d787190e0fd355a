// What failed in a check, as the real tools print it (test/fixtures/runners/): each run's failure
// identities — the failing tests, or each finding's file, rule and message — and what stands for
// an output no parser knows.
import { describe, expect, it } from "vitest"
import { failureIdentities } from "../../src/checks/failures/index.js"
import { outputOf, runsOf, TOOLS } from "./runner-fixtures.js"

describe.each(Object.keys(TOOLS))("%s, as it prints failures", (tool) => {
  const { faults } = TOOLS[tool]!
  const failing = runsOf(tool).filter((r) => r.exitCode !== 0)
  const idsOf = (letters: string[]) => [...new Set(letters.flatMap((f) => faults[f]!))].sort()

  it("names each run's failures — the failing tests, or each finding's file, rule and message — whatever its timings, lines and folder", () => {
    for (const run of failing) {
      if (run.scenario === "broken" && !faults.E) continue
      const output = outputOf(tool, run.file)
      expect(failureIdentities(output, run.directory), run.file).toEqual(idsOf(run.faults))
      // Without the project folder, the temporary one it ran in is dropped all the same.
      expect(failureIdentities(output), `${run.file}, no folder given`).toEqual(idsOf(run.faults))
    }
  })
})

describe("an output no parser recognises", () => {
  it("is identified whole: timings, counts, hex ids and temporary folders folded, never one line of it", () => {
    const run = (ms: number, dir: string, id: string) =>
      `Running suite\nstep ok (${ms}ms)\nError at ${dir}/src/app.js:${ms % 90}:3: worker ${id} crashed\nDone in ${ms / 1000}s\n`
    const first = failureIdentities(run(1234, "/tmp/build-abc123", "0x7f3a9c10"))
    expect(first).toEqual(["Running suite step ok (#ms) Error at src/app.js:#:#: worker # crashed Done in #.#s"])
    expect(failureIdentities(run(87, "/tmp/build-zz9", "0x0011aa22"))).toEqual(first)
    expect(failureIdentities(run(87, "/tmp/build-zz9", "0x0011aa22").replace("crashed", "hung"))).not.toEqual(first)
    expect(failureIdentities("")).toEqual([])
  })

  it("a long one is its start and a hash of the whole, the same from any folder (mocha's exception when a file does not load)", () => {
    const run = runsOf("mocha").find((r) => r.scenario === "broken")!
    const output = outputOf("mocha", run.file)
    const [whole] = failureIdentities(output, run.directory)
    expect(whole).toMatch(
      /^Exception during run: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module 'src\/missing\.js' imported from test\/format\.test\.j… #[0-9a-f]{16}$/,
    )
    expect(failureIdentities(output)).toEqual([whole])
    expect(failureIdentities(output.replace("missing.js", "absent.js"), run.directory)).not.toEqual([whole])
  })
})

describe("large outputs", () => {
  it("ESLint's JSON cut at its start (a check keeps the end) still names the messages of the files left whole", () => {
    const run = runsOf("eslint-json").find((r) => r.file === "fixed-1.txt")!
    const output = outputOf("eslint-json", run.file)
    const cut = output.slice(output.indexOf('"source":"export function total'))
    expect(failureIdentities(cut, run.directory)).toEqual(TOOLS["eslint-json"]!.faults.C)
  })

  it("at most 50 identities however many failed, the last one counting the rest (a change among them still shows)", () => {
    const line = outputOf("vitest", "same-1.txt")
      .split("\n")
      .find((l) => l.includes(" FAIL ") && l.includes(" > "))!
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        line.replace("adds small numbers", `case ${String(i).padStart(5, "0")}`),
      ).join("\n")
    const ids = failureIdentities(many(20_000))
    expect(ids).toHaveLength(50)
    expect(ids[0]).toBe("test/calc.test.js > calc > case 00000")
    expect(ids[48]).toBe("test/calc.test.js > calc > case 00048")
    expect(ids[49]).toMatch(/^… and 19951 more #[0-9a-f]{16}$/)
    expect(failureIdentities(many(20_000).replace("case 12345", "case 12345 again")).at(-1)).not.toBe(ids[49])
  })

  it("megabytes on one line, or of one character, end (no pattern backtracks over them)", () => {
    const lines = (piece: string) => `${piece.repeat(Math.ceil(4_000 / piece.length))}\n`.repeat(250)
    const hostile = [
      "a:1:".repeat(500_000),
      "(".repeat(2_000_000),
      `${"x".repeat(2_000_000)}\n  1:1  error  x`,
      `FAILED ${"a::".repeat(300_000)}`,
      "\x1b]".repeat(300_000),
      lines("src/a.js:1:1: "),
      lines("a(1,1): "),
      lines(" (1.5 ms)"),
    ]
    for (const text of hostile) {
      expect(failureIdentities(text).length).toBeGreaterThan(0)
    }
  })
})
