// 50 malformed configs and flag strings: each gives one clear message naming the file (or flag) and
// the key, and the settings that result are still valid — the loop runs on safe values, or (flags)
// does not start. Then settings and plans nested past any use.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { parseRalphArgs } from "../../src/commands/ralph-args.js"
import { LiveSettings } from "../../src/config/live-settings.js"
import { formatProblem, loadSettings } from "../../src/config/load.js"
import { DEFAULT_SETTINGS, settingSchemas, SETTING_KEYS } from "../../src/config/schema.js"
import type { OpencodeApi } from "../../src/opencode/api.js"
import { parsePlan } from "../../src/plan/plan-reader.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const HUGE = "x".repeat(10 * 1024 * 1024)
const allValid = z.object(Object.fromEntries(SETTING_KEYS.map((k) => [k, settingSchemas[k]])))

function load(text: string) {
  const directory = join(tempDir("ralph-malformed-"), "p")
  mkdirSync(join(directory, ".opencode"), { recursive: true })
  writeFileSync(join(directory, ".opencode/ralph-loop.jsonc"), text)
  return loadSettings({ directory })
}

// [what, file text, the key named (undefined: the whole file), the message must match]
const configs: Array<[string, string, string | undefined, RegExp]> = [
  ["syntax: missing value", '{ "maxRetries": }', undefined, /not valid JSONC \(ValueExpected at line 1/],
  ["syntax: unclosed object", '{ "maxRetries": 3', undefined, /not valid JSONC/],
  ["syntax: stray text", "maxRetries = 3", undefined, /not valid JSONC/],
  ["syntax: two objects", '{ "a": 1 } { "b": 2 }', undefined, /not valid JSONC/],
  ["syntax: unterminated string", '{ "promiseWord": "DONE }', undefined, /not valid JSONC/],
  ["syntax: unterminated comment", '{ /* "maxRetries": 3 }', undefined, /not valid JSONC/],
  ["not an object: array", "[1, 2, 3]", undefined, /must contain a JSON object/],
  ["not an object: string", '"hello"', undefined, /must contain a JSON object/],
  ["not an object: number", "42", undefined, /must contain a JSON object/],
  ["not an object: null", "null", undefined, /must contain a JSON object/],
  ["wrong type: string for number", '{ "maxRetries": "three" }', "maxRetries", /expected number/],
  ["wrong type: boolean for number", '{ "maxIterations": true }', "maxIterations", /expected number/],
  ["wrong type: number for boolean", '{ "autoRestart": 1 }', "autoRestart", /expected boolean/],
  ["wrong type: object for string", '{ "promiseWord": { "w": 1 } }', "promiseWord", /expected string/],
  ["wrong type: string for checks", '{ "checks": "npm test" }', "checks", /expected array/],
  ["negative number", '{ "maxRetries": -1 }', "maxRetries", /must be 0 or more/],
  ["huge number", '{ "maxRetries": 1000000000 }', "maxRetries", /must be at most 1000/],
  ["fraction for a count", '{ "noProgressThreshold": 2.5 }', "noProgressThreshold", /whole number/],
  ["zero cooldown", '{ "cooldownMinutes": 0 }', "cooldownMinutes", /more than 0/],
  ["overflowing number", '{ "maxTokens": 1e400 }', "maxTokens", /./],
  ["enum: unknown strategy", '{ "strategy": "sideways" }', "strategy", /Invalid option/],
  ["enum: wrong case", '{ "activation": "ALWAYS" }', "activation", /Invalid option/],
  ["enum: unknown exit gate", '{ "exitGate": "both" }', "exitGate", /Invalid option/],
  ["empty promise word", '{ "promiseWord": "" }', "promiseWord", /must not be empty/],
  ["whitespace promise word", '{ "promiseWord": "   " }', "promiseWord", /must not be empty/],
  ["tag characters in the promise word", '{ "promiseWord": "</promise>" }', "promiseWord", /must not contain < or >/],
  ["10 MB promise word", `{ "promiseWord": "${HUGE}" }`, "promiseWord", /at most 200 characters/],
  ["summaryPath outside", '{ "summaryPath": "../../etc" }', "summaryPath", /points outside the project/],
  ["check without a command", '{ "checks": [{ "name": "t", "kind": "test" }] }', "checks", /expected string/],
  [
    "check with a bad kind",
    '{ "checks": [{ "name": "t", "command": "x", "kind": "unit" }] }',
    "checks",
    /Invalid option/,
  ],
  ["unknown key", '{ "maxRetires": 3 }', "maxRetires", /unknown key \(ignored\); did you mean "maxRetries"/],
]

// [the flag the message names, flag string, message must match]
const flagRows: Array<[string, string, RegExp]> = [
  ["task --max-iterations", "--max-iterations", /needs a value/],
  ["task --max-iterations abc", "--max-iterations", /expected a number/],
  ["task --max-iterations -5", "--max-iterations", /must be at least 1/],
  ["task --max-iterations 99999999", "--max-iterations", /at most 10000/],
  ["task --max-iterations 2.5", "--max-iterations", /whole number/],
  ["task --max-iteration 5", "--max-iteration", /unknown flag --max-iteration \(did you mean --max-iterations\?\)/],
  ["task --frobnicate", "--frobnicate", /unknown flag --frobnicate \(known flags:/],
  ["task --strategy", "--strategy", /needs a value/],
  ["task --strategy=", "--strategy", /Invalid option/],
  ["task --strategy sideways", "--strategy", /Invalid option/],
  ["task --completion-promise ''", "--completion-promise", /must not be empty/],
  [`task --completion-promise ${"y".repeat(10 * 1024 * 1024)}`, "--completion-promise", /at most 200 characters/],
  ['task --completion-promise "<b>"', "--completion-promise", /must not contain < or >/],
  ["task --cooldown-minutes 0", "--cooldown-minutes", /more than 0/],
  ["task --max-retries 1 --max-retries 2", "--max-retries", /given twice/],
  ["task --status-block=maybe", "--status-block", /=true \/ =false/],
  ['task --check ""', "--check", /needs a command/],
  ["task --exit-gate all", "--exit-gate", /Invalid option/],
  ['task "unclosed', '"', /unclosed " quote/],
]
const flags = flagRows.map(([line, flag, message]) => [flag, line, message] as [string, string, RegExp])

describe("50 malformed inputs", () => {
  it("the table has 50 cases", () => {
    expect(configs.length + flags.length).toBe(50)
  })

  it.each(configs)("config, %s: one message naming the file and key, safe settings", (_what, text, key, message) => {
    const { settings, problems } = load(text)
    expect(problems).toHaveLength(1)
    const shown = formatProblem(problems[0]!)
    expect(shown.startsWith(".opencode/ralph-loop.jsonc")).toBe(true)
    if (key) expect(shown).toContain(`"${key}"`)
    expect(shown).toMatch(message)
    expect(shown.length).toBeLessThan(600)
    expect(allValid.safeParse(settings).success).toBe(true)
    if (key && key in DEFAULT_SETTINGS)
      expect(settings[key as keyof typeof settings]).toEqual(DEFAULT_SETTINGS[key as keyof typeof DEFAULT_SETTINGS])
  })

  it.each(flags)("flags, %s: starts nothing and names the flag", (flag, line, message) => {
    const result = parseRalphArgs(line)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error).toContain(flag)
    expect(result.error).toMatch(message)
    expect(result.error.length).toBeLessThan(700)
  })
})

// Nested past any use (found by fuzzing the settings: 100,000 brackets threw RangeError out of
// jsonc-parser, and the plugin died at load with one log line): one message naming the file, and
// the plugin runs on the other layers' values.
describe("settings nested too deeply", () => {
  const N = 100_000
  const deep: Array<[string, string]> = [
    ["100,000 nested arrays", `${"[".repeat(N)}${"]".repeat(N)}`],
    ["100,000 nested objects", `${'{"a":'.repeat(N)}1${"}".repeat(N)}`],
    ["100,000 nested arrays in a key's value", `{ "checks": ${"[".repeat(N)}${"]".repeat(N)} }`],
    ["nested objects in notify, not closed", `{ "notify": ${'{"a":'.repeat(N)}`],
    ["stray closers between the openers", `{ "checks": ${"[1},".repeat(N)} }`],
  ]

  it.each(deep)("%s: one message naming the file, safe settings", (_what, text) => {
    const { settings, problems } = load(`// a comment\n${text}`)
    expect(problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /^\.opencode\/ralph-loop\.jsonc is nested too deeply \(more than 256 levels of brackets, at line 2, column \d+\); the whole file is ignored$/,
      ),
    ])
    expect(settings).toEqual(DEFAULT_SETTINGS)
  })

  it('in opencode.json\'s "ralph-loop" block: that block is skipped, the settings file still read', () => {
    const directory = join(tempDir("ralph-malformed-"), "p")
    mkdirSync(join(directory, ".opencode"), { recursive: true })
    writeFileSync(
      join(directory, "opencode.json"),
      `{ "ralph-loop": { "maxRetries": ${"[".repeat(N)}${"]".repeat(N)} } }`,
    )
    writeFileSync(join(directory, ".opencode/ralph-loop.jsonc"), '{ "maxRetries": 4 }')
    const { settings, problems } = loadSettings({ directory })
    expect(problems.map(formatProblem)).toEqual([
      'opencode.json is nested too deeply (more than 256 levels of brackets, at line 1, column 287); its "ralph-loop" block is skipped',
    ])
    expect(settings.maxRetries).toBe(4)
  })

  it("plugin options (parsed by OpenCode, not by the plugin) nested 100,000 deep: the key named, the value not shown", () => {
    let deepValue: unknown = []
    for (let i = 0; i < N; i += 1) deepValue = [deepValue]
    const { settings, problems } = loadSettings({
      directory: tempDir("ralph-malformed-"),
      options: { maxRetries: deepValue },
    })
    expect(problems.map(formatProblem)).toEqual([
      'plugin options: "maxRetries" Invalid input: expected number, received array (got a value that cannot be shown); using 5',
    ])
    expect(settings).toEqual(DEFAULT_SETTINGS)
  })

  it("the plugin's settings at load: a warning in the log, and it runs on the defaults", () => {
    const directory = join(tempDir("ralph-malformed-"), "p")
    mkdirSync(join(directory, ".opencode"), { recursive: true })
    writeFileSync(join(directory, ".opencode/ralph-loop.jsonc"), `${"[".repeat(N)}${"]".repeat(N)}`)
    const logs: string[] = []
    const api = {
      log: (_level: string, message: string) => logs.push(message),
      toast: () => undefined,
    } as unknown as OpencodeApi
    const live = new LiveSettings({ directory }, api)
    expect(live.current).toEqual(DEFAULT_SETTINGS)
    expect(live.reload()).toEqual(DEFAULT_SETTINGS)
    expect(logs).toEqual([expect.stringMatching(/^config: \.opencode\/ralph-loop\.jsonc is nested too deeply/)])
  })
})

describe("plan files that once overflowed the stack", () => {
  it("nested too deeply, with a comment (so jsonc-parser reads it): a problem, not a RangeError", () => {
    const read = parsePlan(`// the plan\n{ "userStories": ${"[".repeat(100_000)}${"]".repeat(100_000)} }`)
    expect(read).toEqual({
      ok: false,
      problems: ["not valid JSON: line 2, column 273: nested too deeply (more than 256 levels of brackets)"],
    })
  })

  it("a chain of 50,000 stories, each depending on the next: read; and the cycle when the last depends on the first", () => {
    const n = 50_000
    const stories = Array.from({ length: n }, (_, i) => ({
      id: `s${i}`,
      title: `story ${i}`,
      dependsOn: i + 1 < n ? [`s${i + 1}`] : [],
    }))
    const read = parsePlan(JSON.stringify(stories))
    expect(read.ok && read.plan.stories.length).toBe(n)
    stories[n - 1]!.dependsOn = ["s0"]
    const cyclic = parsePlan(JSON.stringify(stories))
    expect(cyclic.ok).toBe(false)
    expect(cyclic.ok ? "" : cyclic.problems[0]).toMatch(
      /^found a top-level array: 50000 items, but the stories s0 → s1 → .* → s49999 → s0 depend on each other, so none of them can start$/,
    )
  })
})
