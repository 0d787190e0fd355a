import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { formatProblem, loadSettings } from "../../src/config/load.js"
import { DEFAULT_SETTINGS, settingsJsonSchema } from "../../src/config/schema.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

function dirs(project?: string, global?: string) {
  const root = tempDir("ralph-config-")
  const directory = join(root, "project")
  const globalDir = join(root, "global")
  mkdirSync(join(directory, ".opencode"), { recursive: true })
  mkdirSync(globalDir, { recursive: true })
  if (project !== undefined) writeFileSync(join(directory, ".opencode", "ralph-loop.jsonc"), project)
  if (global !== undefined) writeFileSync(join(globalDir, "ralph-loop.jsonc"), global)
  return { directory, globalDir }
}

describe("loadSettings", () => {
  it("notify: each key optional, the rest from the defaults; a bad one is named inside it", () => {
    const { settings, problems } = loadSettings({
      ...dirs('{ "notify": { "webhook": "http://127.0.0.1:9/hook" }, "usageLimitMaxWaitHours": 2 }'),
      options: undefined,
    })
    expect(settings.notify).toEqual({
      desktop: true,
      on: ["ended", "breaker", "waiting"],
      webhook: "http://127.0.0.1:9/hook",
    })
    expect(settings.usageLimitMaxWaitHours).toBe(2)
    expect(problems).toEqual([])
    const bad = loadSettings({ ...dirs('{ "notify": { "webhook": "ftp://x", "on": ["ended"] } }'), options: undefined })
    expect(bad.settings.notify).toEqual(DEFAULT_SETTINGS.notify)
    expect(formatProblem(bad.problems[0]!)).toBe(
      '.opencode/ralph-loop.jsonc: "notify.webhook" must be an http(s) URL (got {"webhook":"ftp://x","on":["ended"]}); using {"desktop":true,"on":["ended","breaker","waiting"]}',
    )
    expect(loadSettings({ ...dirs('{ "notify": { "on": ["finished"] } }'), options: undefined }).problems[0]?.key).toBe(
      "notify.on",
    )
  })

  it("a bad notify value's message shows no webhook secret: neither the bad one nor the one in use from a lower layer", () => {
    const token = "XoXbT0kEn5eCr3t"
    const sources = dirs(
      `{ "notify": { "webhook": "ftp://user:${token}@files.example/hook" } }`,
      `{ "notify": { "webhook": "https://hooks.slack.com/services/T1/B2/${token}" } }`,
    )
    const { settings, problems } = loadSettings(sources)
    expect(settings.notify.webhook).toBe(`https://hooks.slack.com/services/T1/B2/${token}`)
    expect(problems.map(formatProblem)).toEqual([
      '.opencode/ralph-loop.jsonc: "notify.webhook" must be an http(s) URL (got {"webhook":"ftp://files.example/…"}); using {"desktop":true,"webhook":"https://hooks.slack.com/…","on":["ended","breaker","waiting"]}',
    ])
    // No URL at all (a scheme forgotten): hidden whole; and a check's command keeps no URL's credentials in the message.
    const loose = loadSettings(
      dirs(
        '{ "notify": { "webhook": "hooks.slack.com/' +
          token +
          '" }, "checks": [{ "name": "up", "command": "curl https://' +
          token +
          '@ci.example/x", "kind": "unit" }] }',
      ),
    )
    const shown = loose.problems.map(formatProblem).join("\n")
    expect(shown).toContain('(got {"webhook":"(hidden)"})')
    expect(shown).toContain('"checks" Invalid option')
    expect(shown).not.toContain(token)
  })

  it('reads seed 000\'s "ralph-loop" block of opencode.json(c), below the ralph-loop file of the same scope', () => {
    const sources = dirs('{ "maxRetries": 9 }')
    writeFileSync(
      join(sources.directory, "opencode.jsonc"),
      '{ // OpenCode drops this block; the plugin reads it\n "ralph-loop": { "promiseWord": "FIN", "maxRetries": 2, "summaryPath": "notes/", "autoRestart": false, "maxRetrys": 1 } }',
    )
    writeFileSync(
      join(sources.globalDir, "opencode.json"),
      '{ "ralph-loop": { "promiseWord": "GLOBAL", "strategy": "fresh" } }',
    )
    const { settings, problems, explicit } = loadSettings(sources)
    expect(settings).toMatchObject({
      promiseWord: "FIN",
      maxRetries: 9,
      summaryPath: "notes/",
      autoRestart: false,
      strategy: "fresh",
    })
    expect(explicit.has("summaryPath")).toBe(true)
    expect(problems).toEqual([
      {
        source: 'opencode.jsonc "ralph-loop"',
        key: "maxRetrys",
        message: 'unknown key (ignored); did you mean "maxRetries"?',
      },
    ])
  })

  it("skips the block of an opencode.json with a syntax error, and says so (jsonc-parser would still hand back a guess)", () => {
    const sources = dirs()
    writeFileSync(
      join(sources.directory, "opencode.json"),
      '{\n  "ralph-loop": { "promiseWord": "FIN" }\n  "model": "x"\n}',
    )
    const { settings, problems } = loadSettings(sources)
    expect(settings.promiseWord).toBe("DONE")
    expect(problems).toEqual([
      {
        source: "opencode.json",
        message: 'has a syntax error (CommaExpected at line 3, column 3); its "ralph-loop" block is skipped',
      },
    ])
    writeFileSync(join(sources.directory, "opencode.json"), '{ "model": "x" "small_model": "y" }')
    expect(loadSettings(sources).problems).toEqual([])
  })

  it("uses the defaults with no files and no options", () => {
    expect(loadSettings(dirs())).toEqual({ settings: DEFAULT_SETTINGS, explicit: new Set(), problems: [], files: [] })
  })

  it("layers defaults ← global ← project ← plugin options", () => {
    const sources = dirs(
      '{ "maxRetries": 7, "strategy": "fresh" }',
      '{ "maxRetries": 9, "promiseWord": "FIN", "autoRestart": false }',
    )
    const { settings, problems, explicit } = loadSettings({ ...sources, options: { strategy: "continue" } })
    expect(problems).toEqual([])
    expect([...explicit].sort()).toEqual(["autoRestart", "maxRetries", "promiseWord", "strategy"])
    expect(settings).toEqual({
      ...DEFAULT_SETTINGS,
      maxRetries: 7,
      promiseWord: "FIN",
      autoRestart: false,
      strategy: "continue",
    })
  })

  it("reads JSONC: comments and trailing commas", () => {
    const { settings, problems } = loadSettings(dirs('{\n // note\n "maxRetries": 2, /* x */\n}'))
    expect(problems).toEqual([])
    expect(settings.maxRetries).toBe(2)
  })

  it("ignores a file with a syntax error and says where", () => {
    const { settings, problems } = loadSettings(dirs('{ "maxRetries": 2,\n "strategy": }'))
    expect(settings).toEqual(DEFAULT_SETTINGS)
    expect(problems).toHaveLength(1)
    expect(formatProblem(problems[0]!)).toMatch(
      /^\.opencode\/ralph-loop\.jsonc is not valid JSONC \(ValueExpected at line 2, column 14\)/,
    )
  })

  it("keeps the value of the layer below for a bad key, and the good keys of the same file", () => {
    const sources = dirs('{ "maxRetries": -1, "strategy": "sideways", "promiseWord": "OK" }', '{ "maxRetries": 8 }')
    const { settings, problems } = loadSettings(sources)
    expect(settings).toMatchObject({ maxRetries: 8, strategy: "recreate", promiseWord: "OK" })
    expect(problems.map((p) => p.key)).toEqual(["maxRetries", "strategy"])
    expect(formatProblem(problems[0]!)).toBe(
      '.opencode/ralph-loop.jsonc: "maxRetries" must be 0 or more (got -1); using 8',
    )
  })

  it("rejects wrong types, non-objects and bad plugin options", () => {
    expect(loadSettings(dirs('{ "autoRestart": "yes" }')).problems[0]?.message).toMatch(/expected boolean.*"yes"/)
    expect(loadSettings(dirs("[1, 2]")).problems[0]?.message).toMatch(/must contain a JSON object/)
    expect(loadSettings({ ...dirs(), options: { maxRetries: 1.5 } }).problems[0]).toMatchObject({
      source: "plugin options",
      key: "maxRetries",
    })
    expect(loadSettings({ ...dirs(), options: "x" as never }).problems[0]?.message).toBe("must be an object")
  })

  it("names unknown keys and suggests the closest one", () => {
    const { problems } = loadSettings(dirs('{ "max_retries": 3, "promisword": "X", "colour": 1 }'))
    expect(problems.map((p) => p.message)).toEqual([
      'unknown key (ignored); did you mean "maxRetries"?',
      'unknown key (ignored); did you mean "promiseWord"?',
      "unknown key (ignored)",
    ])
  })

  it('names an unknown feature in disabledFeatures with a "did you mean", and keeps the layer below', () => {
    const sources = dirs(
      '{ "disabledFeatures": ["todo-continuaton", "keyword"] }',
      '{ "disabledFeatures": ["tool-guard"] }',
    )
    const { settings, problems } = loadSettings(sources)
    expect(settings.disabledFeatures).toEqual(["tool-guard"])
    expect(problems.map(formatProblem)).toEqual([
      '.opencode/ralph-loop.jsonc: "disabledFeatures" unknown feature "todo-continuaton"; did you mean "todo-continuation"? (got ["todo-continuaton","keyword"]); using ["tool-guard"]',
    ])
    expect(loadSettings({ ...dirs(), options: { disabledFeatures: ["everything"] } }).problems[0]?.message).toMatch(
      /^unknown feature "everything" \(known: todo-continuation, keyword, /,
    )
  })

  it("reads the continuation settings and completion markers", () => {
    const options = {
      autoContinue: true,
      autoContinueMax: 5,
      todoContinuationDelaySeconds: 0,
      todoContinuationMax: 1,
      keywords: ["ulw:"],
      completionMarkers: ["<jikime:done />"],
      disabledFeatures: ["remember", "progress-log"],
    }
    const { settings, problems } = loadSettings({ ...dirs(), options })
    expect(problems).toEqual([])
    expect(settings).toMatchObject(options)
    expect(loadSettings({ ...dirs(), options: { completionMarkers: [""] } }).problems[0]?.key).toBe("completionMarkers")
  })

  it("keeps summaryPath inside the project", () => {
    for (const path of ["../outside", "/etc", "a/../../b"]) {
      const { settings, problems } = loadSettings({ ...dirs(), options: { summaryPath: path } })
      expect(settings.summaryPath).toBe(DEFAULT_SETTINGS.summaryPath)
      expect(problems[0]?.key).toBe("summaryPath")
    }
    expect(loadSettings({ ...dirs(), options: { summaryPath: "notes/ralph" } }).settings.summaryPath).toBe(
      "notes/ralph",
    )
  })

  it("rejects a promise word that could not be written inside the tag", () => {
    expect(loadSettings({ ...dirs(), options: { promiseWord: "   " } }).problems[0]?.key).toBe("promiseWord")
    expect(loadSettings({ ...dirs(), options: { promiseWord: "</promise>" } }).problems[0]?.key).toBe("promiseWord")
  })
})

describe("the shipped JSON Schema", () => {
  it("is the one the zod schema produces", () => {
    const shipped = JSON.parse(readFileSync(new URL("../../ralph-loop.schema.json", import.meta.url), "utf8"))
    expect(shipped).toEqual(settingsJsonSchema())
  })
})
