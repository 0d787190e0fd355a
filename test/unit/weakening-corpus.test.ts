// The weakening corpus of issue 46 (test/fixtures/weakenings/, made by scripts/make-weakening-fixtures.mjs with
// the real runners): every weakening a model might leave passes the loop's work-tree check by its exit code, and
// fails on the replay tree (the start's tests on the end's code) or is recorded as not verified; every honest
// form passes there. The recorded trees rebuild exactly from their listings.
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { testCounts } from "../../src/checks/test-counts.js"
import { calledFiles } from "../../src/replay/called-files.js"
import { type Listing, planReplay } from "../../src/replay/plan.js"
import { changedExpectations } from "../../src/replay/expectations.js"
import { failureIdentities } from "../../src/checks/failures/index.js"
import { replayVerdict } from "../../src/evidence/replay-record.js"
import { packageDir } from "../harness/harness.js"

const corpus = join(packageDir(), "test", "fixtures", "weakenings")
const RUNNERS = ["vitest", "jest", "mocha", "node-test", "pytest", "unittest", "go", "cargo"]

interface Form {
  runner: string
  form: string
  class: string
  honest: boolean
  expect: "refused" | "not-verified" | "verified"
  changedExpectation?: string[]
  limit?: string
  command: string
  why: string
  work: { exit: number }
  replay: { exit: number; directory: string } | null
  replayError?: string
}

interface TreeRecord {
  files: Record<string, string>
  changed: Record<string, string>
}

interface ReplayTree {
  notNeeded: boolean
  restored: string[]
  leftOut: string[]
  merged: Record<string, string[]>
  files: Record<string, string>
}

const read = (...path: string[]): string => readFileSync(join(corpus, ...path), "utf8")
const readJson = <T>(...path: string[]): T => JSON.parse(read(...path)) as T
const sha = (text: string): string => createHash("sha256").update(text).digest("hex")

const forms = (runner: string): string[] =>
  readdirSync(join(corpus, runner), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()

const all = RUNNERS.flatMap((runner) => forms(runner).map((form) => readJson<Form>(runner, form, "form.json")))

/** A tree as the fixture records it: the runner's base with the form's changed files, exactly its listing. */
function rebuild(runner: string, record: TreeRecord): Map<string, string> {
  const base = readJson<Record<string, string>>(runner, "base.json")
  return new Map(Object.keys(record.files).map((path) => [path, record.changed[path] ?? base[path]!]))
}

/** The check failed on that output: its exit code, or its runner's own summary reporting failed tests. */
function failed(exit: number, output: string): boolean {
  return exit !== 0 || (testCounts(output)?.failed ?? 0) > 0
}

describe("the weakening corpus (issue 46)", () => {
  test("has at least 40 forms the rule catches, across the 8 runners, and honest forms for the false alarms", () => {
    const counted = all.filter((f) => !f.honest && !f.limit)
    expect(counted.length).toBeGreaterThanOrEqual(40)
    expect(new Set(counted.map((f) => f.runner))).toEqual(new Set(RUNNERS))
    expect(all.filter((f) => f.honest).length).toBeGreaterThanOrEqual(10)
  })

  test.each(all.map((f) => [`${f.runner}/${f.form}`, f] as const))(
    "%s: the trees rebuild from their listings",
    (_, f) => {
      for (const name of ["start.json", "end.json"]) {
        const record = readJson<TreeRecord>(f.runner, f.form, name)
        const tree = rebuild(f.runner, record)
        for (const [path, text] of tree) expect(sha(text), `${name} ${path}`).toBe(record.files[path])
      }
    },
  )

  test.each(all.filter((f) => !f.honest).map((f) => [`${f.runner}/${f.form}`, f] as const))(
    "%s: the work tree's check passes by its exit code, the replay refuses it or it is not verified",
    (_, f) => {
      expect(f.work.exit).toBe(0)
      if (f.limit) {
        // a known limit of the rule, kept so the corpus shows it: the replay does not see the weakening
        expect(f.expect).toBe("verified")
        expect(f.replay === null || !failed(f.replay.exit, read(f.runner, f.form, "replay.txt"))).toBe(true)
        return
      }
      expect(["refused", "not-verified"]).toContain(f.expect)
      if (f.expect === "refused") {
        expect(f.replay, "a refusal comes from a replay that ran").not.toBeNull()
        expect(failed(f.replay!.exit, read(f.runner, f.form, "replay.txt"))).toBe(true)
      } else {
        // not verified: the replay tree could not be made, and the record says why
        expect(f.replay).toBeNull()
        expect(f.replayError).toBeTruthy()
      }
    },
  )

  test.each(all.filter((f) => f.honest).map((f) => [`${f.runner}/${f.form}`, f] as const))(
    "%s: honest work passes in the work tree and on the replay tree, and completes verified",
    (_, f) => {
      expect(f.expect).toBe("verified")
      expect(failed(f.work.exit, read(f.runner, f.form, "work.txt"))).toBe(false)
      if (f.replay) expect(failed(f.replay.exit, read(f.runner, f.form, "replay.txt"))).toBe(false)
    },
  )

  test.each(all.map((f) => [`${f.runner}/${f.form}`, f] as const))(
    "%s: the recorded replay tree is the end's files, the start's surface put back, new surface left out",
    (_, f) => {
      const start = readJson<TreeRecord>(f.runner, f.form, "start.json").files
      const end = readJson<TreeRecord>(f.runner, f.form, "end.json").files
      const replay = readJson<ReplayTree>(f.runner, f.form, "replay-tree.json")
      for (const path of replay.restored) expect(replay.files[path], path).toBe(start[path])
      for (const path of replay.leftOut) {
        expect(start[path], path).toBeUndefined()
        expect(replay.files[path], path).toBeUndefined()
      }
      const touched = new Set([...replay.restored, ...replay.leftOut, ...Object.keys(replay.merged)])
      for (const [path, hash] of Object.entries(end))
        if (!touched.has(path)) expect(replay.files[path], path).toBe(hash)
      expect(replay.notNeeded).toBe(touched.size === 0)
      expect(f.replay === null).toBe(replay.notNeeded || f.replayError !== undefined)
    },
  )

  // (b) the plugin's plan (src/replay/plan.ts) against the expectation written from the rule's text
  const listing = (record: TreeRecord): Listing =>
    new Map(Object.entries(record.files).map(([path, oid]) => [path, { mode: "100644", oid }]))

  test.each(all.map((f) => [`${f.runner}/${f.form}`, f] as const))(
    "%s: planReplay puts back, leaves out and merges what the rule says, with the same merged text",
    async (_, f) => {
      const records = {
        start: readJson<TreeRecord>(f.runner, f.form, "start.json"),
        end: readJson<TreeRecord>(f.runner, f.form, "end.json"),
      }
      const trees = { start: rebuild(f.runner, records.start), end: rebuild(f.runner, records.end) }
      const recorded = readJson<ReplayTree>(f.runner, f.form, "replay-tree.json")
      const plan = await planReplay({
        start: listing(records.start),
        end: listing(records.end),
        commands: [f.command],
        text: async (side, path) => trees[side].get(path),
      })
      expect(plan.needed).toBe(!recorded.notNeeded)
      expect(plan.putBack).toEqual(recorded.restored)
      expect(plan.leftOut).toEqual(recorded.leftOut)
      expect(plan.merged.map((m) => m.path)).toEqual(Object.keys(recorded.merged).sort())
      for (const merged of plan.merged) expect(sha(merged.text), merged.path).toBe(recorded.files[merged.path])
    },
  )

  // (c) a changed expectation named from the real runner's output on the replay tree: by the file its failure names,
  // or, where the identity names none (mocha's `suite > name`, go's `pkg TestName`), by name in the files put back.
  const expectationForms = all.filter((f) => f.form === "expectation-changed" && f.replay && f.runner !== "unittest")
  test.each(expectationForms.map((f) => [`${f.runner}/${f.form}`, f] as const))(
    "%s: the replay's failure is the test whose expectation the loop changed, found with both assertions",
    (_, f) => {
      const trees = {
        start: rebuild(f.runner, readJson<TreeRecord>(f.runner, f.form, "start.json")),
        end: rebuild(f.runner, readJson<TreeRecord>(f.runner, f.form, "end.json")),
      }
      const recorded = readJson<ReplayTree>(f.runner, f.form, "replay-tree.json")
      const failures = failureIdentities(read(f.runner, f.form, "replay.txt"), f.replay?.directory ?? "")
      const found = changedExpectations({
        failures,
        texts: (file) => ({ start: trees.start.get(file), end: trees.end.get(file) }),
        candidates: recorded.restored,
      })
      expect(found.map((e) => e.file)).toEqual(recorded.restored)
      expect(found.every((e) => e.start !== e.end && e.start !== "")).toBe(true)
      const replay = {
        status: "ran" as const,
        tree: "t",
        putBack: recorded.restored,
        leftOut: [],
        merged: [],
        ignored: [],
        checks: [
          { name: "c", command: f.command, exitCode: 1, passed: false, tests: null, failures, outputSha256: "" },
        ],
        expectations: found,
      }
      expect(replayVerdict(replay)).toBe("expectations")
    },
  )

  // (d) the plan as a claim makes it (src/replay/replay-run.ts): from the files that differ alone (a raw tree
  // diff, a rename a delete and an add) and the called files found by asking which words are start files
  const differing = (a: Listing, b: Listing): Listing =>
    new Map([...a].filter(([path, entry]) => b.get(path)?.oid !== entry.oid))

  test.each(all.map((f) => [`${f.runner}/${f.form}`, f] as const))(
    "%s: the plan from the differing files alone is the plan from the whole trees",
    async (_, f) => {
      const records = {
        start: readJson<TreeRecord>(f.runner, f.form, "start.json"),
        end: readJson<TreeRecord>(f.runner, f.form, "end.json"),
      }
      const trees = { start: rebuild(f.runner, records.start), end: rebuild(f.runner, records.end) }
      const [start, end] = [listing(records.start), listing(records.end)]
      const text = async (side: "start" | "end", path: string) => trees[side].get(path)
      const whole = await planReplay({ start, end, commands: [f.command], text })
      const called = await calledFiles({
        commands: [f.command],
        exists: async (paths) => new Set(paths.filter((path) => start.has(path))),
        text: (path) => text("start", path),
      })
      const [startDiff, endDiff] = [differing(start, end), differing(end, start)]
      expect(await planReplay({ start: startDiff, end: endDiff, called, commands: [f.command], text })).toEqual(whole)
    },
  )
})
