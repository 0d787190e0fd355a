// The one lifecycle of a worktree loop: each stage from its files, and what the watcher, the limit
// and clean make of it.
import { describe, expect, it } from "vitest"
import {
  awaitsSettling,
  cleanVerdict,
  isLive,
  launchCut,
  leftByFailedStart,
  stageOf,
  startWasCut,
  type WorktreeFacts,
} from "../../src/worktrees/lifecycle.js"
import type { WorktreeState } from "../../src/worktrees/worktree-state.js"
import { STALE_MS, STALLED_MS, type Heartbeat } from "../../src/owner/heartbeat.js"

const state = (merge?: WorktreeState["merge"]): WorktreeState => ({
  name: "w",
  branch: "ralph/w",
  mainDirectory: "/p",
  base: { commit: "c" },
  mergeStrategy: "ff-or-branch",
  createdAt: 0,
  ...(merge ? { merge } : {}),
})
const loop = (phase: "running" | "waiting" | "paused" | "stopped") => ({ loop: { phase } })

const cases: Array<[string, WorktreeFacts, ReturnType<typeof stageOf>]> = [
  ["no worktree.json", { state: undefined, saved: loop("running") }, undefined],
  ["made, its loop not saved yet", { state: state(), saved: undefined }, "starting"],
  [
    "made, its launcher gone before its loop was saved",
    { state: state(), saved: undefined, launchCut: true },
    "unstarted",
  ],
  [
    "its launcher gone, its loop saved (it started)",
    { state: state(), saved: loop("running"), launchCut: true },
    "running",
  ],
  ["its loop running", { state: state(), saved: loop("running") }, "running"],
  ["its loop paused", { state: state(), saved: loop("paused") }, "running"],
  ["its loop waiting", { state: state(), saved: loop("waiting") }, "running"],
  ["its loop stopped, not merged yet", { state: state(), saved: loop("stopped") }, "ended"],
  ["merged", { state: state({ result: "merged", detail: "d", removed: true }), saved: loop("stopped") }, "settled"],
  ["kept", { state: state({ result: "kept", detail: "d" }), saved: loop("stopped") }, "settled"],
  ["could not start", { state: state({ result: "failed", detail: "d" }), saved: undefined }, "settled"],
]

describe("worktree loop lifecycle", () => {
  it.each(cases)("%s", (_, facts, stage) => {
    expect(stageOf(facts)).toBe(stage)
    expect(isLive(facts)).toBe(stage === "starting" || stage === "running")
    expect(awaitsSettling(facts)).toBe(stage === "ended")
    expect(startWasCut(facts)).toBe(stage === "unstarted")
  })

  it("clean may remove a settled, unstarted or ended worktree (once it proves nothing is lost, or with --force); never a live one or a folder it does not know", () => {
    const verdicts = cases.map(([name, facts]) => [name, cleanVerdict(facts).remove])
    expect(verdicts).toEqual([
      ["no worktree.json", false],
      ["made, its loop not saved yet", false],
      ["made, its launcher gone before its loop was saved", true],
      ["its launcher gone, its loop saved (it started)", false],
      ["its loop running", false],
      ["its loop paused", false],
      ["its loop waiting", false],
      ["its loop stopped, not merged yet", true],
      ["merged", true],
      ["kept", true],
      ["could not start", true],
    ])
    // Recorded as failed to start, but a loop was saved there after all and runs: not clean's.
    expect(cleanVerdict({ state: state({ result: "failed", detail: "d" }), saved: loop("running") })).toEqual({
      remove: false,
      why: "its loop is still running",
    })
  })
})

describe("a launch cut off", () => {
  const now = 1_000_000
  const us = (pid: number, pids: number[], boot?: string) => ({
    host: "here",
    pid,
    boot,
    now,
    pidAlive: (p: number) => pids.includes(p),
  })
  const none = new Map<string, Heartbeat>()
  const beat = (boot: string, pid: number, age: number): Heartbeat => ({
    pid,
    host: "here",
    boot,
    heartbeat: now - age,
  })
  const launch = { pid: 100, boot: "a" }
  it("not by the instance that launched it, nor while another live process launches it, nor without a record", () => {
    expect(launchCut(launch, us(100, [100], "a"), none)).toBe(false)
    expect(launchCut(launch, us(200, [100, 200], "b"), none)).toBe(false)
    expect(launchCut(launch, us(200, [100, 200], "b"), new Map([["a", beat("a", 100, 1_000)]]))).toBe(false)
    expect(launchCut(undefined, us(200, [200], "b"), none)).toBe(false)
  })
  it("when its process is gone, or this very process is another instance (a restart that got the same pid)", () => {
    expect(launchCut(launch, us(200, [200], "b"), none)).toBe(true)
    expect(launchCut(launch, us(100, [100], "b"), none)).toBe(true)
    expect(launchCut(launch, us(300, [300]), none)).toBe(true)
  })
  it("when its heartbeat stopped (its pid runs, but under another boot id, or it hung past STALLED_MS)", () => {
    expect(launchCut(launch, us(200, [100, 200], "b"), new Map([["c", beat("c", 100, 0)]]))).toBe(true)
    expect(launchCut(launch, us(200, [100, 200], "b"), new Map([["a", beat("a", 100, STALE_MS + 1)]]))).toBe(false)
    expect(launchCut(launch, us(200, [100, 200], "b"), new Map([["a", beat("a", 100, STALLED_MS + 1)]]))).toBe(true)
  })
})

describe("left by a start that did not finish (a new start of its name may take its place)", () => {
  it("only where no loop was ever saved, and worktree.json says its start failed or was cut off, or there is none", () => {
    expect(cases.filter(([, facts]) => leftByFailedStart(facts)).map(([name]) => name)).toEqual([
      "made, its launcher gone before its loop was saved",
      "could not start",
    ])
    expect(leftByFailedStart({ state: undefined, saved: undefined })).toBe(true)
    expect(leftByFailedStart({ state: state({ result: "failed", detail: "d" }), saved: loop("stopped") })).toBe(false)
  })
})
