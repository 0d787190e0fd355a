// The loop's state file is read through schemas composed of each part's own: a loop comes back from
// disk as it was written (only what the running process alone knows starts over), a file written
// by an older version still loads, and a damaged part is named in the message.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { snapshotOf, type CheckResult } from "../../src/checks/diagnostics.js"
import { stateOf, type Loop } from "../../src/loop/loop.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { loop } from "./fixtures.js"

const temps: string[] = []
const project = () => {
  const dir = mkdtempSync(join(tmpdir(), "ralph-schema-"))
  temps.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const check: CheckResult = {
  name: "tsc",
  kind: "typecheck",
  command: "npx tsc --noEmit",
  status: "failed",
  exitCode: 2,
  durationMs: 1234,
  output: "src/a.ts(1,1): error TS2304: Cannot find name 'x'.",
  errors: 1,
  warnings: 0,
  info: 0,
  security: 0,
  testsRun: 0,
  testsFailed: 0,
  testsPassed: 0,
  files: [{ path: "src/a.ts", errors: 1, warnings: 0 }],
}

/** A loop with every part of its state set, and the runtime-only fields away from their start. */
function everything(): Loop {
  return loop({
    phase: "waiting",
    sessionID: "ses_c",
    lineage: ["ses_a", "ses_b"],
    iteration: 3,
    retries: 2,
    sawBusy: true,
    busyEpoch: 7,
    userEpoch: 2,
    turnEvents: {
      errors: [{ name: "APIError", message: "overloaded" }],
      retried: true,
      compacted: false,
      pending: ["per_1"],
    },
    resumeRequested: { then: "next", fresh: true },
    lastDecidedMessageID: "msg_9",
    breaker: {
      state: "OPEN",
      noProgress: 3,
      sameError: 1,
      lastError: "APIError 529: overloaded",
      openedAt: 50,
      reason: "3 iterations in a row without progress",
    },
    calls: { startedAt: 10, count: 4 },
    usage: { ses_a: { tokens: 1200, cost: 0.25 }, ses_c: { tokens: 300, cost: 0.05 } },
    progress: { workTree: "abc", todosCompleted: 2, todosSession: "ses_c", recentOutputs: ["h1", "h2"] },
    completionStreak: 1,
    backoffs: 2,
    hints: ["use the new API"],
    snapshots: [snapshotOf(2, 40, [check])],
    startHead: "deadbeef",
    iterationStartedAt: 45,
    lastDecision: "backoff",
    gotchas: [
      {
        title: "tsc: src/a.ts(1,1): error TS2304",
        message: "Cannot find name 'x'.",
        files: ["src/a.ts"],
        iteration: 2,
      },
    ],
    wait: { reason: "backoff", until: 90, then: "resume" },
    lastTurn: {
      lastAssistantID: "msg_9",
      texts: ["working on it"],
      error: {
        name: "APIError",
        message: "overloaded",
        statusCode: 529,
        retryable: true,
        headers: { "retry-after": "20" },
      },
      finish: "error",
      model: { providerID: "mock", modelID: "mock-model" },
      agent: "build",
    },
    restart: { fresh: true, note: "context full", feedback: "fix tsc", sessionID: "ses_d" },
    retiring: ["ses_b"],
    detail: "waiting for the provider",
  })
}

/** Saves the loop, edits its state file as JSON, and loads the project again. */
async function reloadEdited(saved: Loop, edit: (state: any) => void) {
  const dir = project()
  const store = new LoopStore(dir)
  await store.save(saved, "decided", 1)
  const file = store.fileOf(saved.id)
  const state = JSON.parse(readFileSync(file, "utf8"))
  edit(state)
  writeFileSync(file, JSON.stringify(state))
  return new LoopStore(dir).load(2)
}

describe("the loop's state file", () => {
  it("gives back the loop as it was saved; only what the running process alone knows starts over", async () => {
    const dir = project()
    const saved = everything()
    await new LoopStore(dir).save(saved, "decided", 100)
    const { loops, problems } = await new LoopStore(dir).load(200)
    expect(problems).toEqual([])
    expect(loops).toHaveLength(1)
    const loaded = loops[0] as Loop
    expect(stateOf(loaded)).toEqual(stateOf(saved))
    expect(loaded).toMatchObject({
      sawBusy: false,
      busyEpoch: 0,
      userEpoch: 0,
      turnEvents: { errors: [], retried: false, compacted: false, pending: [] },
    })
    expect(loaded.resumeRequested).toBeUndefined()
    const written = JSON.parse(readFileSync(new LoopStore(dir).fileOf(saved.id), "utf8")).loop
    for (const runtimeOnly of ["sawBusy", "busyEpoch", "userEpoch", "turnEvents", "resumeRequested"])
      expect(written).not.toHaveProperty(runtimeOnly)
  })

  it("loads a file an older version wrote: missing fields and settings get their defaults", async () => {
    const { loops, problems } = await reloadEdited(loop({ phase: "running" }), (state) => {
      for (const added of ["snapshots", "gotchas", "retiring", "iterationStartedAt"]) delete state.loop[added]
      delete state.loop.settings.settleMs
      state.loop.userEpoch = 3 // written by versions before it was runtime-only: ignored
    })
    expect(problems).toEqual([])
    expect(loops[0]).toMatchObject({
      snapshots: [],
      gotchas: [],
      retiring: [],
      iterationStartedAt: 0,
      userEpoch: 0,
      settings: { settleMs: 150 },
    })
  })

  it("rejects a file with a bad snapshot, naming the field, and rebuilds the loop from the journal", async () => {
    const l = everything()
    const { loops, problems, rebuilt } = await reloadEdited(l, (state) => {
      state.loop.snapshots[0].checks[0].status = "flaky"
    })
    expect(problems).toHaveLength(1)
    expect(problems[0]?.message).toMatch(
      /^is damaged \(loop\.snapshots\.0\.checks\.0\.status: .*\); moved aside to .*; rebuilt from the journal at iteration 3/,
    )
    expect(rebuilt).toEqual([l.id])
    expect(loops[0]).toMatchObject({ id: l.id, iteration: 3, snapshots: [] })
  })

  it("rejects a last turn that is not one, naming the field", async () => {
    const { problems } = await reloadEdited(everything(), (state) => {
      state.loop.lastTurn.error = { message: "no name" }
    })
    expect(problems[0]?.message).toMatch(/\(loop\.lastTurn\.error\.name: /)
  })

  it("rejects a session id that could not be a file name", async () => {
    const { problems } = await reloadEdited(loop({ phase: "running" }), (state) => {
      state.loop.lineage = ["../../etc"]
    })
    expect(problems[0]?.message).toMatch(/\(loop\.lineage\.0: is not a session id\)/)
  })
})
