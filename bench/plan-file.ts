// Benchmark 10 — a plan file of 1 MB (issue 21): reading it as /ralph --prd does (file → stories)
// and writing one story's "done" back into it (read, locate the item, edit its field, atomic
// write), in two shapes: the common userStories file and a top-level array of features. Run in a
// child node process on the built dist/, in a temp project.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface PlanFileCase {
  name: string
  fileBytes: number
  stories: number
  readMs: number
  writeBackMs: number
}

export interface PlanFileResult {
  cases: PlanFileCase[]
}

const MB = 1024 * 1024

/** A pretty-printed plan of about `bytes`, every story not done. */
function bigPlan(shape: "userStories" | "array", bytes: number): { text: string; stories: number } {
  const story = (i: number) =>
    shape === "userStories"
      ? {
          id: `US-${String(i).padStart(5, "0")}`,
          title: `Story ${i}`,
          description: `As a user I want feature ${i} so that the shop does ${i} things`,
          acceptanceCriteria: [`feature ${i} works`, "Typecheck passes"],
          priority: (i % 5) + 1,
          passes: false,
          notes: "",
        }
      : {
          category: i % 2 ? "functional" : "style",
          description: `Feature ${i} does what the user asked for, in every browser`,
          steps: [`open page ${i}`, `click button ${i}`, "verify the result"],
          passes: false,
        }
  const items: unknown[] = []
  for (let size = 0; size < bytes; size += JSON.stringify(items.at(-1), null, 2).length + 8)
    items.push(story(items.length + 1))
  const text = `${JSON.stringify(shape === "userStories" ? { project: "Big", userStories: items } : items, null, 2)}\n`
  return { text, stories: items.length }
}

async function measure(): Promise<PlanFileResult> {
  const { readPlanFile, writePlanBack } =
    await loadDist<typeof import("../src/plan/plan-file.js")>("store/plan-file.js")
  const runs = QUICK ? 5 : 15
  const cases: PlanFileCase[] = []
  for (const shape of ["userStories", "array"] as const) {
    const dir = mkdtempSync(join(tmpdir(), "ralph-bench-plan-"))
    try {
      const plan = bigPlan(shape, MB)
      const reads: number[] = []
      const writes: number[] = []
      for (let i = 0; i < runs + 2; i += 1) {
        writeFileSync(join(dir, "prd.json"), plan.text)
        let started = process.hrtime.bigint()
        const read = await readPlanFile(dir, "prd.json")
        const readMs = Number(process.hrtime.bigint() - started) / 1e6
        if (!read.ok) throw new Error(read.message)
        const story = read.plan.stories[Math.floor(read.plan.stories.length / 2)]
        if (!story) throw new Error("no story")
        started = process.hrtime.bigint()
        const written = await writePlanBack(dir, {
          file: "prd.json",
          shape: read.plan.shape,
          stories: read.plan.stories,
          done: [{ id: story.id, iteration: 1, checks: ["tests"] }],
        })
        const writeMs = Number(process.hrtime.bigint() - started) / 1e6
        if (!("changed" in written) || written.changed.join() !== story.id)
          throw new Error(`write-back changed ${JSON.stringify(written)}`)
        const after = await readPlanFile(dir, "prd.json")
        if (!after.ok || !after.plan.doneInFile.includes(story.id)) throw new Error("the story was not marked")
        if (i >= 2) {
          reads.push(readMs)
          writes.push(writeMs)
        }
      }
      cases.push({
        name: shape === "userStories" ? "userStories plan" : "top-level array of features",
        fileBytes: plan.text.length,
        stories: plan.stories,
        readMs: round(median(reads), 2),
        writeBackMs: round(median(writes), 2),
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return { cases }
}

export function runPlanFileBench(): Promise<PlanFileResult> {
  return runChild<PlanFileResult>(fileURLToPath(import.meta.url), [], {}, 5 * 60_000)
}

runAsChild(import.meta.url, "plan-file", measure)
