import { describe, expect, it } from "vitest"
import { DEFAULT_SETTINGS, type SettingKey } from "../../src/config/schema.js"
import { consistentSettings } from "../../src/loop/limits.js"
import { maxIterations, newLoop, type LoopSettings } from "../../src/loop/loop.js"

const { activation: _a, ...defaults } = DEFAULT_SETTINGS
const limitOf = (settings: LoopSettings) => maxIterations(newLoop("ses_a", "task", settings, 0))
const resolve = (set: Partial<LoopSettings>) => consistentSettings({ ...defaults, ...set }, new Set(Object.keys(set) as SettingKey[]))

describe("the settings a loop starts with", () => {
  it("an explicit iteration limit is the limit: the default retry limit rises with it", () => {
    const { settings, notices } = resolve({ maxIterations: 20 })
    expect(settings.maxRetries).toBe(19)
    expect(limitOf(settings)).toBe(20)
    expect(notices).toEqual([])
  })

  it("an explicit retry limit above the default iteration limit raises it: maxRetries 60 means 61 turns", () => {
    const { settings } = resolve({ maxRetries: 60 })
    expect(settings.maxIterations).toBe(61)
    expect(limitOf(settings)).toBe(61)
    expect(limitOf(resolve({ maxRetries: 10 }).settings)).toBe(11)
  })

  it("completes on its criteria only when this /ralph gave them as flags", () => {
    const flags = (given: SettingKey[], set: Partial<LoopSettings> = {}) => consistentSettings({ ...defaults, ...set }, new Set(given), new Set(given)).settings.completeOnCriteria
    expect(flags(["zeroErrors"])).toBe(true)
    expect(flags(["checks"])).toBe(true)
    expect(flags(["testsPass", "maxIterations"])).toBe(true)
    expect(flags(["maxIterations"])).toBe(false)
    expect(flags([])).toBe(false)
    expect(flags(["zeroErrors"], { completeOnCriteria: false })).toBe(false)
  })

  it("both set: the smaller of the two limits wins", () => {
    expect(limitOf(resolve({ maxIterations: 20, maxRetries: 3 }).settings)).toBe(4)
    expect(limitOf(resolve({ maxIterations: 3 }).settings)).toBe(3)
  })

  it("without either, the defaults stand: maxRetries 5 means 6 turns", () => {
    expect(limitOf(resolve({}).settings)).toBe(6)
  })

  it("an exit gate that reads the status block turns the block on, and says so", () => {
    for (const exitGate of ["dual", "either"] as const) {
      const { settings, notices } = resolve({ exitGate })
      expect(settings.statusBlock).toBe(true)
      expect(notices).toEqual([`exitGate "${exitGate}" reads the RALPH_STATUS block, so statusBlock is turned on for this loop`])
    }
    expect(resolve({ exitGate: "promise" }).notices).toEqual([])
  })
})
