// The loop's own checks (issue 39): a claim is refused when the settings file now drops a check the
// loop began with or changes what it runs; the settings in force re-read that file once it changed.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { LiveSettings } from "../../src/config/live-settings.js"
import { findingText } from "../../src/evidence/finding.js"
import { changedLoopChecks } from "../../src/evidence/loop-checks.js"
import type { Host } from "../../src/host/port.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const unit = { name: "unit", command: "npm test" }
const lint = { name: "lint", command: "npm run lint" }

describe("the loop's own checks against the settings now", () => {
  it("a check whose command changed, and one gone, are each a finding naming before and after", () => {
    const findings = changedLoopChecks([unit, lint], [{ name: "unit", command: "true" }])
    expect(findings).toEqual([
      {
        kind: "check-config",
        file: ".opencode/ralph-loop.jsonc",
        name: "check unit",
        before: "npm test",
        after: "true",
      },
      {
        kind: "check-config",
        file: ".opencode/ralph-loop.jsonc",
        name: "check lint",
        before: "npm run lint",
        after: null,
      },
    ])
    expect(findingText(findings[0]!)).toBe(
      ".opencode/ralph-loop.jsonc, which the checks read (check unit), changed: before `npm test`, after `true`",
    )
  })

  it("no alarm: the same checks, a check added, or the checks left to auto-detection", () => {
    expect(changedLoopChecks([unit], [unit])).toEqual([])
    expect(changedLoopChecks([unit], [unit, lint])).toEqual([])
    expect(changedLoopChecks([], [lint])).toEqual([])
    expect(changedLoopChecks([unit], undefined)).toEqual([])
  })
})

describe("the settings in force", () => {
  it("are read again once the project's settings file changed, and not before", () => {
    const directory = join(tempDir("ralph-live-"), "p")
    mkdirSync(join(directory, ".opencode"), { recursive: true })
    const file = join(directory, ".opencode/ralph-loop.jsonc")
    const checks = (command: string) => JSON.stringify({ checks: [{ name: "unit", kind: "test", command }] })
    writeFileSync(file, checks("npm test"))
    const logs: string[] = []
    const api = { log: (_l: string, m: string) => logs.push(m), toast: () => undefined } as unknown as Host
    const live = new LiveSettings({ directory }, api)
    const first = live.current
    expect(first.checks.map((c) => c.command)).toEqual(["npm test"])
    expect(live.fresh()).toBe(first)
    writeFileSync(file, checks("true   ")) // another size: seen whatever the clock's resolution
    // `current` (read on every event) never looks at the files; the loop's jobs ask `fresh()`.
    expect(live.current).toBe(first)
    expect(live.fresh().checks.map((c) => c.command)).toEqual(["true"])
    expect(logs).toEqual([])
  })
})
