// The evidence a completion rests on: `verified` only when a check passed after the last change,
// none failed, and nothing the guard found stands; the plan write-back says no more than that.
import { describe, expect, it } from "vitest"
import type { Finding } from "../../src/evidence/finding.js"
import { evidenceOf, evidenceSchema, planNote, weakenedOf } from "../../src/evidence/record.js"
import type { EvidenceCheck, EvidenceInput } from "../../src/evidence/record.js"
import { findingKey } from "../../src/evidence/finding.js"

const run = (name: string, ranAt: number, exitCode: number | null, passed?: number): EvidenceCheck => ({
  name,
  command: name === "unit" ? "npm test" : `npm run ${name}`,
  exitCode,
  tests: passed === undefined ? null : { passed, failed: exitCode === 0 ? 0 : 1, skipped: 0 },
  outputSha256: "0".repeat(64),
  ranAt,
})

const skip: Finding = { kind: "skip", file: "a.test.ts", name: "test.skip", line: 3, before: null, after: "x.skip()" }
const expectation: Finding = {
  kind: "expectation",
  file: "a.test.ts",
  name: "x",
  line: 4,
  before: "expect(a).toBe(3)",
  after: "expect(a).toBe(0)",
}

/** The evidence of these runs, changes and findings (no review unless given). */
const evidence = (runs: EvidenceCheck[], lastChangeAt: number | null, more: Partial<EvidenceInput> = {}) =>
  evidenceOf({ runs, lastChangeAt, changedFiles: ["src/a.ts"], review: null, weakened: [], ...more })

describe("verified", () => {
  it("a check that passed after the last change, and no finding: verified; the note names its tests", () => {
    const runs = [run("unit", 100, 1, 11), run("unit", 300, 0, 12), run("lint", 310, 0)]
    const verified = evidence(runs, 200, { changedFiles: ["src/b.ts", "src/a.ts"] })
    expect(verified).toEqual({
      verified: true,
      checks: [run("unit", 300, 0, 12), run("lint", 310, 0)],
      changedFiles: ["src/a.ts", "src/b.ts"],
      review: null,
      weakened: [],
    })
    expect(evidenceSchema.parse(verified)).toEqual(verified)
    expect(planNote(verified, 6)).toBe("Verified by ralph-loop in iteration 6: unit 12 passed; lint passed")
  })

  it("no check ran (a plan loop without checks, or only before the last change): not verified, the note says", () => {
    const none = evidence([], null, { changedFiles: [] })
    expect(none.verified).toBe(false)
    expect(planNote(none, 6)).toBe("Done in iteration 6, not verified: no check ran")
    const stale = evidence([run("unit", 100, 0, 12)], 200)
    expect(stale.checks).toEqual([])
    expect(planNote(stale, 3)).toBe("Done in iteration 3, not verified: no check ran")
  })

  it("a check that failed after the last change: not verified", () => {
    const failed = evidence([run("unit", 300, 0, 12), run("lint", 300, 1)], 200)
    expect(failed.verified).toBe(false)
    expect(planNote(failed, 2)).toBe("Done in iteration 2, not verified: lint failed")
  })

  it("a finding that stands: not verified; accepted, or only a changed expectation: verified", () => {
    const review = { verdict: "approve" as const, reasons: [] }
    const found = [skip, expectation]
    const refused = evidence([run("unit", 300, 0, 12)], 200, { review, weakened: weakenedOf(found, new Set()) })
    expect(refused.verified).toBe(false)
    const note = "Done in iteration 4, not verified: the guard found 1 change that weakens the checks"
    expect(planNote(refused, 4)).toBe(note)
    const acceptedSkip = weakenedOf(found, new Set([findingKey(skip)]))
    const accepted = evidence([run("unit", 300, 0, 12)], 200, { review, weakened: acceptedSkip })
    expect(accepted.verified).toBe(true)
    expect(accepted.weakened.map((w) => [w.kind, w.accepted])).toEqual([
      ["skip", true],
      ["expectation", false],
    ])
    expect(evidenceSchema.parse(accepted)).toEqual(accepted)
  })

  it("skipped tests are named in the note", () => {
    const skipped = evidence([{ ...run("unit", 300, 0), tests: { passed: 3, failed: 0, skipped: 1 } }], null)
    expect(planNote(skipped, 1)).toBe("Verified by ralph-loop in iteration 1: unit 3 passed, 1 skipped")
  })
})
