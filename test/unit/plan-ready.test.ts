// `ralph-loop plan ready`: the ids of the stories that can start now, read as /ralph --prd reads
// the plan (the file's own done marks), one a line or as JSON a CI matrix takes.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../../src/cli/args.js"
import { planReady } from "../../src/cli/plan-ready.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

async function ready(
  files: Record<string, string>,
  argv: string[],
): Promise<{ code: number; lines: string[]; notes: string[] }> {
  const dir = tempDir("ralph-plan-ready-")
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const args = parseArgs(argv, dir)
  if ("error" in args) throw new Error(args.error)
  const lines: string[] = []
  const notes: string[] = []
  const code = await planReady(
    args,
    args.operands[1],
    { XDG_CONFIG_HOME: join(dir, "no-global") },
    (line) => lines.push(line),
    (line) => notes.push(line),
  )
  return { code, lines, notes }
}

const TASKS = JSON.stringify({
  tasks: [
    { id: "T-1", title: "Extract", status: "done" },
    { id: "T-2", title: "Test", priority: 2, status: "todo" },
    { id: "T-3", title: "Clean", status: "todo", depends_on: ["T-1"] },
    { id: "T-4", title: "Rename", priority: 1, status: "todo", depends_on: ["T-2"] },
    { id: "T-5", title: "Ship", priority: 1, status: "todo" },
  ],
})

describe("ralph-loop plan ready", () => {
  it("prints the ready ids one a line, in the loop's order, from the prdPath setting's file", async () => {
    expect(await ready({ ".opencode/prd.json": TASKS }, ["plan", "ready"])).toEqual({
      code: 0,
      lines: ["T-5", "T-2", "T-3"],
      notes: [],
    })
  })

  it("--json: the ready ids under stories, those done, and how many are left", async () => {
    const { code, lines } = await ready({ "plans/p.json": TASKS }, ["plan", "ready", "plans/p.json", "--json"])
    expect(code).toBe(0)
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0] as string)).toEqual({ stories: ["T-5", "T-2", "T-3"], done: ["T-1"], left: 4 })
  })

  it("a plan with every story done: nothing ready, [] in JSON, and a note on stderr", async () => {
    const plan = JSON.stringify({ userStories: [{ id: "A", title: "a", passes: true }] })
    expect(await ready({ "prd.json": plan }, ["plan", "ready", "prd.json"])).toEqual({
      code: 0,
      lines: [],
      notes: ["ralph-loop plan ready: no story of prd.json is left to start: all 1 are done"],
    })
    expect((await ready({ "prd.json": plan }, ["plan", "ready", "prd.json", "--json"])).lines).toEqual([
      '{"stories":[],"done":["A"],"left":0}',
    ])
  })

  it("a file the loop could not use: its message and exit 1", async () => {
    expect(await ready({}, ["plan", "ready", "missing.json"])).toEqual({
      code: 1,
      lines: [],
      notes: ["ralph-loop plan ready: the plan file missing.json does not exist"],
    })
  })
})
