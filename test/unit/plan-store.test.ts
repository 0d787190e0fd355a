// A plan loop's place survives a damaged state file: the journal carries its plan at its start and
// at every decision, so the loop rebuilt from it goes on at the right story.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { PlanState } from "../../src/plan/plan.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { loop } from "./fixtures.js"

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const plan = (done: string[]): PlanState => ({
  file: ".opencode/prd.json",
  shape: "stories",
  stories: ["S1", "S2", "S3"].map((id) => ({ id, title: id, acceptanceCriteria: [], dependsOn: [], checks: [] })),
  done: done.map((id, i) => ({ id, iteration: i + 1, checks: [] })),
})

describe("a plan loop rebuilt from the journal", () => {
  it("keeps its plan and the stories done at its last decision", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ralph-plan-store-"))
    dirs.push(dir)
    const store = new LoopStore(dir)
    const l = loop({ phase: "running", plan: plan([]) })
    await store.save(l, "started", 1)
    l.plan = plan(["S1"])
    l.iteration = 2
    await store.save(l, "decided", 2)
    await store.save(l, "iteration", 3)
    writeFileSync(store.fileOf(l.id), "{ broken")

    const { loops, rebuilt } = await new LoopStore(dir).load(4)
    expect(rebuilt).toEqual([l.id])
    expect(loops[0]?.plan).toEqual(plan(["S1"]))
    expect(loops[0]?.iteration).toBe(2)
  })
})
