import { describe, expect, it } from "vitest"
import type { CheckResult } from "../../src/checks/diagnostics.js"
import { inTargets, scopeCheck, targetsOf } from "../../src/loop/targets.js"
import { unmetCriteria } from "../../src/loop/criteria.js"
import { snapshotOf } from "../../src/checks/diagnostics.js"

describe("@path targets of a task", () => {
  it("are the @-words that look like project paths", () => {
    expect(targetsOf("@src/services/ Fix all lint errors")).toEqual(["src/services/"])
    expect(targetsOf("fix @./lib/a.ts and @README.md, then mail me@example.com")).toEqual(["lib/a.ts", "README.md"])
    expect(targetsOf("no targets here")).toEqual([])
    expect(targetsOf("@/etc/passwd @../outside @src/../../x")).toEqual([])
  })

  it("scope paths: a folder target holds what is below it, a file target itself", () => {
    expect(inTargets("src/services/a.ts", ["src/services/"])).toBe(true)
    expect(inTargets("src/services/a.ts", ["src/services"])).toBe(true)
    expect(inTargets("src/servicesX/a.ts", ["src/services"])).toBe(false)
    expect(inTargets("README.md", ["README.md"])).toBe(true)
    expect(inTargets("anything", [])).toBe(true)
  })

  it("scope a check's counts to the target files when it names files", () => {
    const check: CheckResult = {
      name: "lint",
      kind: "lint",
      command: "eslint .",
      status: "failed",
      exitCode: 1,
      durationMs: 1,
      output: "",
      errors: 5,
      warnings: 2,
      info: 0,
      security: 0,
      testsRun: 0,
      testsFailed: 0,
      testsPassed: 0,
      files: [
        { path: "src/services/a.ts", errors: 1, warnings: 1 },
        { path: "src/other.ts", errors: 4, warnings: 1 },
      ],
    }
    expect(scopeCheck(check, ["src/services/"])).toMatchObject({
      errors: 1,
      warnings: 1,
      files: [{ path: "src/services/a.ts" }],
    })
    expect(scopeCheck(check, [])).toBe(check)
    expect(scopeCheck({ ...check, files: [] }, ["src/services/"])).toMatchObject({ errors: 5 })
  })

  it("a check that failed only over files outside the targets passes for the loop (a failed check never meets the criteria)", () => {
    const check: CheckResult = {
      name: "lint",
      kind: "lint",
      command: "eslint .",
      status: "failed",
      exitCode: 1,
      durationMs: 1,
      output: "src/other.ts\n  1:1  error  Missing semicolon  semi",
      errors: 1,
      warnings: 0,
      info: 0,
      security: 0,
      testsRun: 0,
      testsFailed: 0,
      testsPassed: 0,
      files: [{ path: "src/other.ts", errors: 1, warnings: 0 }],
      failures: ["src/other.ts semi"],
    }
    const scoped = scopeCheck(check, ["src/services/"])
    expect(scoped).toMatchObject({ status: "passed", errors: 0, files: [], failures: [] })
    expect(
      unmetCriteria(snapshotOf(1, 0, [scoped]), {
        zeroErrors: true,
        zeroWarnings: false,
        zeroSecurity: false,
        testsPass: false,
      }),
    ).toEqual([])
    expect(scopeCheck(check, ["src/"])).toMatchObject({ status: "failed", errors: 1 })
  })
})
