import { describe, expect, it } from "vitest"
import { DEFAULT_SETTINGS, type SettingKey } from "../../src/config/schema.js"
import { exceededBudget } from "../../src/loop/budgets.js"
import { consistentSettings, limitsText, taskRetries } from "../../src/loop/limits.js"
import { maxIterations, newLoop, type LoopSettings } from "../../src/loop/loop.js"
import type { PlanState } from "../../src/plan/plan.js"

const { activation: _a, ...defaults } = DEFAULT_SETTINGS
const limitOf = (settings: LoopSettings, plan?: PlanState) => maxIterations({ settings, plan })
/** `files`: set in a settings file (or the plugin options); `flags`: given on this /ralph. */
const resolve = (files: Partial<LoopSettings>, flags: Partial<LoopSettings> = {}, plan = false) =>
  consistentSettings(
    { ...defaults, ...files, ...flags },
    new Set([...Object.keys(files), ...Object.keys(flags)] as SettingKey[]),
    new Set(Object.keys(flags) as SettingKey[]),
    plan,
  )

const story = (id: string) => ({ id, title: `title of ${id}`, acceptanceCriteria: [], dependsOn: [], checks: [] })
const planOf = (count: number, done: PlanState["done"] = []): PlanState => ({
  file: ".opencode/prd.json",
  shape: "userStories",
  stories: Array.from({ length: count }, (_, i) => story(`US-${i + 1}`)),
  done,
})

describe("a loop without a plan: the limit set last is the limit", () => {
  it("without either, the defaults stand: maxRetries 5 means 6 turns", () => {
    expect(limitOf(resolve({}).settings)).toBe(6)
    expect(resolve({}).notices).toEqual([])
  })

  it("an iteration limit in a settings file raises the default retry limit with it, silently (a default is nobody's choice)", () => {
    const { settings, notices } = resolve({ maxIterations: 20 })
    expect(settings.maxRetries).toBe(19)
    expect(limitOf(settings)).toBe(20)
    expect(notices).toEqual([])
  })

  it("--max-iterations 20 with maxRetries 5 in the settings (the shipped example): 20 turns, and the start says maxRetries was raised", () => {
    const { settings, notices } = resolve({ maxRetries: 5 }, { maxIterations: 20 })
    expect(settings).toMatchObject({ maxIterations: 20, maxRetries: 19 })
    expect(limitOf(settings)).toBe(20)
    expect(notices).toEqual([
      "--max-iterations 20 raises maxRetries 5 (settings) to 19 for this loop: the limit set last is the limit",
    ])
  })

  it("a retry limit set after the iteration limit raises it: maxRetries 52 in a file means 53 turns (seed 000's key), --max-retries over a file's maxIterations says so", () => {
    expect(limitOf(resolve({ maxRetries: 52 }).settings)).toBe(53)
    expect(resolve({ maxRetries: 52 }).notices).toEqual([])
    const { settings, notices } = resolve({ maxIterations: 10 }, { maxRetries: 30 })
    expect(limitOf(settings)).toBe(31)
    expect(notices).toEqual([
      "--max-retries 30 raises maxIterations 10 (settings) to 31 for this loop: the limit set last is the limit",
    ])
  })

  it("the smaller limit set last stops the loop first, and the larger one the user set is said not to be reached", () => {
    const { settings, notices } = resolve({ maxIterations: 30 }, { maxRetries: 3 })
    expect(limitOf(settings)).toBe(4)
    expect(notices).toEqual(["--max-retries 3 stops this loop after 4 iterations, before maxIterations 30 (settings)"])
    const fewer = resolve({ maxRetries: 40 }, { maxIterations: 8 })
    expect(limitOf(fewer.settings)).toBe(8)
    expect(fewer.notices).toEqual([
      "--max-iterations 8 stops this loop after 8 iterations, before maxRetries 40 (settings) restarts are used",
    ])
  })

  it("both set at the same level: the smaller wins, and the start says which", () => {
    const flags = resolve({}, { maxIterations: 20, maxRetries: 3 })
    expect(limitOf(flags.settings)).toBe(4)
    expect(flags.notices).toEqual(["--max-retries 3 stops this loop after 4 iterations, before --max-iterations 20"])
    const files = resolve({ maxIterations: 3, maxRetries: 9 })
    expect(limitOf(files.settings)).toBe(3)
    expect(files.notices).toEqual([
      "maxIterations 3 (settings) stops this loop after 3 iterations, before maxRetries 9 (settings) restarts are used",
    ])
    expect(resolve({ maxIterations: 6, maxRetries: 5 }).notices).toEqual([])
  })

  it("a small iteration limit alone needs no notice: maxIterations 3 means 3 turns", () => {
    expect(limitOf(resolve({ maxIterations: 3 }).settings)).toBe(3)
    expect(resolve({ maxIterations: 3 }).notices).toEqual([])
  })
})

describe("a plan loop: maxIterations over the whole plan, maxRetries per story", () => {
  it("neither limit changes the other, whoever set them; the plan's limit is maxIterations", () => {
    const { settings, notices } = resolve({ maxRetries: 5 }, { maxIterations: 100 }, true)
    expect(settings).toMatchObject({ maxIterations: 100, maxRetries: 5 })
    expect(notices).toEqual([])
    expect(limitOf(settings, planOf(8))).toBe(100)
    expect(limitOf(resolve({}, {}, true).settings, planOf(8))).toBe(50)
  })

  it("a per-story retry limit the plan's iteration limit never lets be used up is said", () => {
    expect(resolve({ maxIterations: 10 }, { maxRetries: 20 }, true).notices).toEqual([
      "--max-retries 20 per story cannot be used up: maxIterations 10 (settings) counts every iteration of the plan",
    ])
  })

  it("the defaults fit a 20-story plan whose stories take two iterations each", () => {
    const { settings } = resolve({}, {}, true)
    let loop = { ...newLoop("ses_a", "plan", settings, 0), plan: planOf(20) }
    for (let story = 0; story < 20; story += 1)
      for (let attempt = 1; attempt <= 2; attempt += 1) {
        const done =
          attempt === 2
            ? [...loop.plan.done, { id: `US-${story + 1}`, iteration: loop.iteration, checks: [] }]
            : loop.plan.done
        loop = { ...loop, plan: { ...loop.plan, done } }
        if (done.length === 20) break
        expect(exceededBudget(loop, 0)).toBeUndefined()
        loop = { ...loop, iteration: loop.iteration + 1, retries: loop.retries + 1 }
      }
    expect(loop.plan.done).toHaveLength(20)
    expect(loop.iteration).toBe(40)
  })

  it("the retries count for the current story only: each story done starts them over", () => {
    const settings = resolve({}, {}, true).settings
    const at = (iteration: number, done: PlanState["done"]) => ({
      ...newLoop("ses_a", "plan", settings, 0),
      iteration,
      retries: iteration - 1,
      plan: planOf(8, done),
    })
    expect(taskRetries(at(6, [{ id: "US-1", iteration: 5, checks: [] }]))).toBe(0)
    // Done before the loop began (iteration 0): every iteration of the loop is the current story's.
    expect(taskRetries(at(3, [{ id: "US-1", iteration: 0, checks: [] }]))).toBe(2)
    // Six stories of one iteration each, then a seventh: the loop goes on (on main it stopped here).
    const sixDone = Array.from({ length: 6 }, (_, i) => ({ id: `US-${i + 1}`, iteration: i + 1, checks: [] }))
    expect(exceededBudget(at(7, sixDone), 0)).toBeUndefined()
    // US-7 on its sixth iteration (5 restarts): the loop stops, naming it.
    expect(exceededBudget(at(12, sixDone), 0)).toEqual({
      reason: "retries-exhausted",
      detail: "story US-7 (title of US-7) is not done after 6 iterations, 5 restarts (maxRetries 5 per story)",
    })
  })
})

describe("the rule in words", () => {
  it("says the limit in force and where it comes from", () => {
    expect(limitsText(resolve({}).settings, false)).toBe(
      "6 iterations (the smaller of maxIterations 50 and maxRetries 5 + 1)",
    )
    expect(limitsText(resolve({}, {}, true).settings, true)).toBe(
      "50 iterations for the whole plan (maxIterations); 6 per story (maxRetries 5 + 1, counted again from each story done)",
    )
  })
})

describe("the settings a loop starts with", () => {
  it("completes on its criteria only when this /ralph gave them as flags", () => {
    const flags = (given: SettingKey[], set: Partial<LoopSettings> = {}) =>
      consistentSettings({ ...defaults, ...set }, new Set(given), new Set(given)).settings.completeOnCriteria
    expect(flags(["zeroErrors"])).toBe(true)
    expect(flags(["checks"])).toBe(true)
    expect(flags(["testsPass", "maxIterations"])).toBe(true)
    expect(flags(["maxIterations"])).toBe(false)
    expect(flags([])).toBe(false)
    expect(flags(["zeroErrors"], { completeOnCriteria: false })).toBe(false)
  })

  it("an exit gate that reads the status block turns the block on, and says so", () => {
    for (const exitGate of ["dual", "either"] as const) {
      const { settings, notices } = resolve({ exitGate })
      expect(settings.statusBlock).toBe(true)
      expect(notices).toEqual([
        `exitGate "${exitGate}" reads the RALPH_STATUS block, so statusBlock is turned on for this loop`,
      ])
    }
    expect(resolve({ exitGate: "promise" }).notices).toEqual([])
  })
})
