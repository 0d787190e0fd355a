// "Files changed since the loop began" leaves out the plugin's own writes: its folders by path, and
// the plan file when the plugin's write-back of its record is the plan's only change since the start.
// A change the model made to the plan besides lists it. On real git repositories.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { loopChangedFiles } from "../../src/changes/loop-changes.js"
import { filesChangedSinceStart, snapshotWorkTree } from "../../src/changes/work-tree.js"
import { loopStart } from "../../src/loop/changed-files.js"
import { ownFolders } from "../../src/project/own-files.js"
import type { PlanState } from "../../src/plan/plan.js"
import { parsePlan } from "../../src/plan/plan-reader.js"
import { writePlanBack } from "../../src/plan/plan-file.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tempDir = tempDirs()

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", ...args], {
    cwd,
    stdio: "ignore",
    env: { ...process.env, HOME: cwd },
  })

const PLAN = {
  project: "Shop",
  userStories: [
    { id: "US-1", title: "the cart", acceptanceCriteria: ["cart.txt exists"], passes: false },
    { id: "US-2", title: "the checkout", acceptanceCriteria: ["pay.txt exists"], passes: false },
  ],
}

/** A repository with the project in `packages/app` (git's paths are not the project's) and its plan at `file`. */
function project(file = "prd.json"): { dir: string; plan: PlanState } {
  const root = tempDir("ralph-loop-changes-")
  const dir = join(root, "packages", "app")
  mkdirSync(join(dir, file, ".."), { recursive: true })
  const text = `${JSON.stringify(PLAN, null, 2)}\n`
  writeFileSync(join(dir, file), text)
  writeFileSync(join(dir, "README.md"), "app\n")
  git(root, "init", "-q")
  git(root, "add", "-A")
  git(root, "commit", "-q", "-m", "init")
  const read = parsePlan(text)
  if (!read.ok) throw new Error(read.problems.join("; "))
  return { dir, plan: { file, shape: read.plan.shape, stories: read.plan.stories, done: [] } }
}

/** A loop begun now on `dir`'s work tree, working through `plan`. */
async function begin(dir: string, plan: PlanState, overrides: Parameters<typeof loop>[0] = {}) {
  const start = await snapshotWorkTree(dir)
  return loop({ startHead: start?.head, startTree: start?.tree, plan, ...overrides })
}

/** The plugin marks US-1 done in iteration 1 and writes its record back into the plan file. */
async function markFirstDone(dir: string, plan: PlanState): Promise<PlanState> {
  const marked = { ...plan, done: [{ id: "US-1", iteration: 1, checks: ["cart"] }] }
  expect(await writePlanBack(dir, marked)).toEqual({ changed: ["US-1"] })
  return marked
}

const paths = (files: Array<{ path: string }>) => files.map((f) => f.path)

describe("the files a loop changed, its own writes aside", () => {
  it("the plan file is left out when its only change is the plugin's write-back (a file outside .opencode/)", async () => {
    const { dir, plan } = project()
    const started = await begin(dir, plan)
    writeFileSync(join(dir, "cart.txt"), "cart\n")
    const marked = await markFirstDone(dir, plan)
    expect(JSON.parse(readFileSync(join(dir, "prd.json"), "utf8")).userStories[0].passes).toBe(true)
    // What git sees, and what was listed before: the plan file among the loop's work.
    expect(paths(await filesChangedSinceStart(dir, loopStart(started), ownFolders(started)))).toEqual([
      "cart.txt",
      "prd.json",
    ])
    expect(paths(await loopChangedFiles(dir, { ...started, plan: marked }))).toEqual(["cart.txt"])
  })

  it("the plan file is listed when the model changed it besides: a story reworded, or one it marked done itself", async () => {
    const { dir, plan } = project()
    const started = await begin(dir, plan)
    const marked = await markFirstDone(dir, plan)
    const file = join(dir, "prd.json")
    const written = readFileSync(file, "utf8")
    writeFileSync(file, written.replace('"the checkout"', '"the checkout, with cards"'))
    expect(paths(await loopChangedFiles(dir, { ...started, plan: marked }))).toEqual(["prd.json"])
    // US-2 marked done by the model, not by the plugin: the model's change until the write-back sets it back.
    const byModel = JSON.parse(written)
    byModel.userStories[1].passes = true
    writeFileSync(file, `${JSON.stringify(byModel, null, 2)}\n`)
    expect(paths(await loopChangedFiles(dir, { ...started, plan: marked }))).toEqual(["prd.json"])
    await writePlanBack(dir, marked)
    expect(paths(await loopChangedFiles(dir, { ...started, plan: marked }))).toEqual([])
  })

  it("a plan in a folder of the project: the same rule", async () => {
    const { dir, plan } = project("plans/prd.json")
    const started = await begin(dir, plan)
    const marked = await markFirstDone(dir, plan)
    writeFileSync(join(dir, "pay.txt"), "pay\n")
    expect(paths(await loopChangedFiles(dir, { ...started, plan: marked }))).toEqual(["pay.txt"])
  })

  it("listed when it cannot be told: a --story loop (the plugin leaves its plan file alone), or no start tree", async () => {
    const { dir, plan } = project()
    const started = await begin(dir, plan)
    const marked = await markFirstDone(dir, plan)
    expect(paths(await loopChangedFiles(dir, { ...started, plan: { ...marked, only: "US-1" } }))).toEqual(["prd.json"])
    expect(
      paths(await loopChangedFiles(dir, { ...started, startTree: undefined, startFiles: {}, plan: marked })),
    ).toEqual(["prd.json"])
    // Not a plan loop: a plan file it changed is its work.
    expect(paths(await loopChangedFiles(dir, { ...started, plan: undefined }))).toEqual(["prd.json"])
  })
})
