// A plan loop's place survives on disk: its state file keeps the plan, and the journal carries the
// plan at its start and at every decision — also across a rotation — so a loop rebuilt from the
// newest journal goes on at the right story.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { PlanState } from "../../src/plan/plan.js"
import { LoopStore, parseStateText, stateText } from "../../src/store/loop-store.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const plan = (done: string[]): PlanState => ({
  file: ".opencode/prd.json",
  shape: "stories",
  stories: ["S1", "S2", "S3"].map((id) => ({
    id,
    title: id,
    acceptanceCriteria: [],
    dependsOn: [],
    checks: [{ name: `${id} file`, command: `test -f ${id}`, kind: "test" as const }],
  })),
  done: done.map((id, i) => ({ id, iteration: i + 1, checks: [`${id} file`] })),
})

describe("a plan loop on disk", () => {
  it("its state file keeps the plan and the stories done", () => {
    const l = loop({ phase: "running", plan: plan(["S1"]) })
    expect(parseStateText(stateText(l, 1)).loop.plan).toEqual(plan(["S1"]))
  })

  it("a state file whose plan is malformed fails the schema", () => {
    const text = stateText(loop({ phase: "running", plan: plan(["S1"]) }), 1).replace(
      '"shape": "stories"',
      '"shape": ""',
    )
    expect(() => parseStateText(text)).toThrow(/shape/)
  })

  it("rebuilt from the journal, keeps its plan and the stories done at its last decision", async () => {
    const dir = tempDir("ralph-plan-store-")
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

  it("a rotated journal starts with the plan loop's last line that carries its plan, then its last line", async () => {
    const dir = tempDir("ralph-plan-store-")
    const limits = { maxBytes: 6_000, kept: 2 }
    const store = new LoopStore(dir, undefined, limits)
    const l = loop({ id: "loop_p", phase: "running", plan: plan([]) })
    await store.save(l, "started", 1)
    l.plan = plan(["S1"])
    l.iteration = 2
    await store.save(l, "decided", 2)
    // Many changes that carry no plan, until the journal rotates with one of them as the last line.
    const other = loop({ id: "loop_o", phase: "running" })
    for (let i = 0; i < 40; i += 1) await store.save(other, "iteration", 10 + i)
    l.phase = "paused"
    await store.save(l, "paused", 100)
    for (let i = 0; i < 40; i += 1) await store.save(other, "iteration", 200 + i)

    const newest = readFileSync(join(store.dir, "journal.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; loop: { id: string }; plan?: unknown })
    expect(newest.filter((e) => e.loop.id === "loop_p").map((e) => [e.event, e.plan !== undefined])).toEqual([
      ["decided", true],
      ["paused", false],
    ])

    writeFileSync(store.fileOf(l.id), "{ broken")
    const { loops, rebuilt } = await new LoopStore(dir, undefined, limits).load(1_000)
    expect(rebuilt).toEqual([l.id])
    const rebuiltLoop = loops.find((x) => x.id === l.id)
    expect(rebuiltLoop?.plan).toEqual(plan(["S1"]))
    expect(rebuiltLoop?.phase).toBe("paused")
  })
})
