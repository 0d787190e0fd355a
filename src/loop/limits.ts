// The settings a loop starts with, made consistent: it completes on its criteria only when they
// were given as flags of its /ralph; its iteration and retry limits follow the one rule below; and
// an exit gate that needs the RALPH_STATUS block gets it. Each adjustment comes with a notice.
//
// The limit rule (docs/configuration.md, "Iterations and retries"):
// - `maxRetries` counts the restarts of one task not yet done: a loop's task, or a plan's current
//   story — the count starts over when the plugin verifies a story done.
// - `maxIterations` counts every iteration of the loop, a plan's stories together.
// - A loop without a plan runs at most min(maxIterations, maxRetries + 1) iterations. Of the two,
//   the one set last — a /ralph flag over a settings file, a settings file over the default — is
//   the limit: the other is raised to match it. Set at the same level, the smaller stops the loop.
// - A plan loop keeps both as they are: they count different things.
// Whenever a value the user set is raised, or cannot be reached because of the other, they are told.
import type { SettingKey } from "../config/schema.js"
import type { LoopSettings } from "./loop.js"

/** The flags that make a loop's criteria (seed 004): given on /ralph, the loop may complete on them. */
const CRITERIA_FLAGS: readonly SettingKey[] = ["zeroErrors", "zeroWarnings", "zeroSecurity", "testsPass", "checks"]

type Limits = Pick<LoopSettings, "maxIterations" | "maxRetries">

/** `given`: the settings this /ralph call's flags set; `plan`: it is a plan loop (/ralph --prd). */
export function consistentSettings(
  settings: LoopSettings,
  explicit: ReadonlySet<SettingKey>,
  given: ReadonlySet<SettingKey> = new Set(),
  plan = false,
): { settings: LoopSettings; notices: string[] } {
  let next = settings
  if (settings.completeOnCriteria && !CRITERIA_FLAGS.some((key) => given.has(key)))
    next = { ...next, completeOnCriteria: false }
  const limits = consistentLimits(settings, explicit, given, plan)
  next = { ...next, ...limits.settings }
  const notices = [...limits.notices]
  if (settings.exitGate !== "promise" && !settings.statusBlock) {
    next = { ...next, statusBlock: true }
    notices.push(
      `exitGate "${settings.exitGate}" reads the RALPH_STATUS block, so statusBlock is turned on for this loop`,
    )
  }
  return { settings: next, notices }
}

/** Where a value came from: 0 the default, 1 a settings file or the plugin options, 2 a flag of this /ralph. */
type Level = 0 | 1 | 2

const FLAG: Record<keyof Limits, string> = { maxIterations: "--max-iterations", maxRetries: "--max-retries" }

/** `--max-iterations 20`, `maxRetries 5 (settings)`, `maxIterations 50 (default)`. */
const named = (key: keyof Limits, value: number, level: Level): string =>
  level === 2 ? `${FLAG[key]} ${value}` : `${key} ${value} (${level === 1 ? "settings" : "default"})`

/** The limit rule (see the top of this file): the two limits a loop runs with, and what the user is told. */
export function consistentLimits(
  settings: Limits,
  explicit: ReadonlySet<SettingKey>,
  given: ReadonlySet<SettingKey>,
  plan: boolean,
): { settings: Limits; notices: string[] } {
  const level = (key: keyof Limits): Level => (given.has(key) ? 2 : explicit.has(key) ? 1 : 0)
  const { maxIterations: iterations, maxRetries: retries } = settings
  const [li, lr] = [level("maxIterations"), level("maxRetries")]
  const it = named("maxIterations", iterations, li)
  const re = named("maxRetries", retries, lr)
  const unchanged = { settings: { maxIterations: iterations, maxRetries: retries }, notices: [] as string[] }
  if (plan) {
    if (retries + 1 <= iterations || lr === 0) return unchanged
    return { ...unchanged, notices: [`${re} per story cannot be used up: ${it} counts every iteration of the plan`] }
  }
  if (retries + 1 === iterations) return unchanged
  if (retries + 1 < iterations) {
    // The iteration limit is the larger: set last, it raises the retry limit; else the retry limit stops the loop
    // first.
    if (li > lr)
      return {
        settings: { maxIterations: iterations, maxRetries: iterations - 1 },
        notices:
          lr > 0 ? [`${it} raises ${re} to ${iterations - 1} for this loop: the limit set last is the limit`] : [],
      }
    return {
      ...unchanged,
      notices: li > 0 ? [`${re} stops this loop after ${retries + 1} iterations, before ${it}`] : [],
    }
  }
  if (lr > li)
    return {
      settings: { maxIterations: retries + 1, maxRetries: retries },
      notices: li > 0 ? [`${re} raises ${it} to ${retries + 1} for this loop: the limit set last is the limit`] : [],
    }
  return {
    ...unchanged,
    notices: lr > 0 ? [`${it} stops this loop after ${iterations} iterations, before ${re} restarts are used`] : [],
  }
}

/** A loop's iterations at most: a plan's, every iteration of it; another's, its task's first turn and its restarts. */
export const iterationLimit = (settings: Limits, plan: boolean): number =>
  plan ? settings.maxIterations : Math.min(settings.maxRetries + 1, settings.maxIterations)

/**
 * The restarts of the current task: a loop's, or a plan's current story (counted from the iteration
 * after the last story done; -1 between a story done and the next story's first iteration).
 */
export function taskRetries(loop: {
  retries: number
  plan?: { done: ReadonlyArray<{ iteration: number }> } | undefined
}): number {
  const lastDone = loop.plan ? loop.plan.done.reduce((max, d) => Math.max(max, d.iteration), 0) : 0
  return loop.retries - lastDone
}

/** The rule in force for a loop, in words (/ralph-status, `ralph-loop status`). */
export function limitsText(settings: Limits, plan: boolean): string {
  const { maxIterations: iterations, maxRetries: retries } = settings
  return plan
    ? `${iterations} iterations for the whole plan (maxIterations); ${retries + 1} per story (maxRetries ` +
        `${retries} + 1, counted again from each story done)`
    : `${iterationLimit(settings, false)} iterations (the smaller of maxIterations ${iterations} and maxRetries ` +
        `${retries} + 1)`
}
