// What a replay found (issue 46), as the evidence keeps it: ran (with each check's exit code, counts
// and failing tests, the files it put back, left out and merged, the changed expectations), not
// needed (the loop changed no file of the start's surface), or could not run (and why). And the one
// rule on it: whether it proves the claim. Pure.
import { z } from "zod"
import { testCountsSchema } from "../checks/test-counts.js"

const replayCheckSchema = z.object({
  name: z.string(),
  command: z.string(),
  /** Null: it did not exit (timed out, could not start). */
  exitCode: z.int().nullable(),
  /** Passed: exit 0 and no failed test in its runner's summary. */
  passed: z.boolean(),
  tests: testCountsSchema.nullable(),
  /** The failing tests (or other failures), as the runner's output names them. */
  failures: z.array(z.string()),
  outputSha256: z.string(),
})
export type ReplayCheck = z.infer<typeof replayCheckSchema>

const changedExpectationSchema = z.object({
  file: z.string(),
  name: z.string(),
  start: z.string(),
  end: z.string(),
  /** The failure identity, when it names no file (mocha, go): the test was found by its name. */
  failure: z.string().optional(),
})

export const replaySchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("not-needed") }),
  z.object({
    status: z.literal("ran"),
    /** The replay tree as a git tree object. */
    tree: z.string(),
    putBack: z.array(z.string()),
    leftOut: z.array(z.string()),
    merged: z.array(z.string()),
    /** Files git ignores that a runner would read, left out of the replay and named. */
    ignored: z.array(z.string()),
    checks: z.array(replayCheckSchema),
    expectations: z.array(changedExpectationSchema),
  }),
  z.object({ status: z.literal("could-not-run"), reason: z.string() }),
])
export type Replay = z.infer<typeof replaySchema>
export type RanReplay = Extract<Replay, { status: "ran" }>

/**
 * What the replay says of the claim: `proven` (it passed, or was not needed), `failed` (the start's
 * tests fail on the end's code), `expectations` (they fail only in tests whose expectation the loop
 * changed, nothing else of the surface changed but test files), `unproven` (it could not run).
 */
export type ReplayVerdict = "proven" | "failed" | "expectations" | "unproven"

export function replayVerdict(replay: Replay): ReplayVerdict {
  if (replay.status === "not-needed") return "proven"
  if (replay.status === "could-not-run") return "unproven"
  const failing = replay.checks.filter((c) => !c.passed)
  if (failing.length === 0) return "proven"
  const changed = new Set(replay.expectations.map((e) => `${e.file}::${e.name}`))
  const onlyTests =
    replay.merged.length === 0 && replay.putBack.every((path) => replay.expectations.some((e) => e.file === path))
  const byName = new Set(replay.expectations.flatMap((e) => (e.failure === undefined ? [] : [e.failure])))
  const explained = failing.every(
    (c) =>
      c.failures.length > 0 && c.failures.every((f) => byName.has(f) || [...changed].some((key) => sameTest(f, key))),
  )
  return onlyTests && explained && changed.size > 0 ? "expectations" : "failed"
}

/** A failure identity names the test `file::name` (`file > suite > name` or `file::Class::name[param]`). */
function sameTest(failure: string, key: string): boolean {
  const [file, name] = [key.slice(0, key.indexOf("::")), key.slice(key.indexOf("::") + 2)]
  if (!failure.startsWith(file)) return false
  const tail = failure.split("[")[0] ?? failure
  return tail.endsWith(` > ${name}`) || tail.endsWith(`::${name}`)
}

/** The key a changed expectation is remembered by: the same change claimed again is the same key. */
export const expectationKey = (e: z.infer<typeof changedExpectationSchema>): string => `${e.file}::${e.name}::${e.end}`

/** One line of what the replay did: for the log, the journal and status. */
export function replayLine(replay: Replay): string {
  if (replay.status === "not-needed") return "not needed (the loop changed no file of the start's tests)"
  if (replay.status === "could-not-run") return `could not run: ${replay.reason}`
  const failing = replay.checks.filter((c) => !c.passed)
  const put = replay.putBack.length + replay.merged.length
  const what = `${put} file${put === 1 ? "" : "s"} of the start's tests put back`
  if (failing.length === 0) return `ran, ${what}: ${replay.checks.map((c) => `${c.name} passed`).join(", ")}`
  return `ran, ${what}: ${failing.map((c) => `${c.name} failed (${c.failures.slice(0, 5).join("; ")})`).join(", ")}`
}

/**
 * A finding the replay cannot answer: a change of the loop's own checks in its settings file, which
 * lies outside the trees the replay compares. It refuses a claim whatever the replay says.
 */
export const outsideReplay = (finding: { file: string | null }): boolean =>
  finding.file === ".opencode/ralph-loop.jsonc"
