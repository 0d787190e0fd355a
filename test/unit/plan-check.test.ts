// `ralph-loop plan check`: a plan read as /ralph --prd would read it, its stories in the loop's
// order and the next one; a file the loop could not use gives the loop's message and exit 1.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../../src/cli/args.js"
import { planCheck } from "../../src/cli/plan-check.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

async function check(files: Record<string, string>, argv: string[]): Promise<{ code: number; lines: string[] }> {
  const dir = tempDir("ralph-plan-check-")
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const args = parseArgs(argv, dir)
  if ("error" in args) throw new Error(args.error)
  const lines: string[] = []
  const code = await planCheck(args, args.operands[1], { XDG_CONFIG_HOME: join(dir, "no-global") }, (line) =>
    lines.push(line),
  )
  return { code, lines }
}

const TASKS = JSON.stringify({
  title: "Billing",
  tasks: [
    { id: "T-1", title: "Extract", priority: "low", status: "todo" },
    { id: "T-2", title: "Test", priority: "high", status: "todo", acceptance_criteria: ["invoice tests pass"] },
    { id: "T-3", title: "Clean", status: "done" },
    { id: "T-4", title: "Rename", priority: "P0", status: "todo", depends_on: ["T-1"] },
  ],
})

describe("ralph-loop plan check", () => {
  it("prints the stories done, then the rest in the loop's order, and the next story with its criteria", async () => {
    const { code, lines } = await check({ ".opencode/prd.json": TASKS }, ["plan", "check"])
    expect(code).toBe(0)
    expect(lines).toEqual([
      '.opencode/prd.json: 4 stories read from "tasks" — Billing; 1 done',
      "  ✓ T-3  Clean  (done)",
      "  → T-2  Test  (priority 1)",
      "  2. T-1  Extract  (priority 3)",
      "  3. T-4  Rename  (priority 0, after T-1)",
      "",
      "Next: T-2 — Test",
      "  - invoice tests pass",
      "/ralph --prd .opencode/prd.json works through the 3 stories left, one per iteration.",
    ])
  })

  it("reads the file the project's prdPath names, or the PATH given", async () => {
    const plan = JSON.stringify([{ description: "only one", passes: true }])
    const fromSetting = await check(
      { ".opencode/ralph-loop.jsonc": '{ "prdPath": "plans/features.json" }', "plans/features.json": plan },
      ["plan", "check"],
    )
    expect(fromSetting.lines[0]).toBe("plans/features.json: 1 story read from a top-level array; 1 done")
    expect(fromSetting.lines.at(-1)).toBe("Every story is done: /ralph --prd would start nothing.")
    const given = await check({ "elsewhere.json": plan }, ["plan", "check", "elsewhere.json"])
    expect(given.lines[0]).toBe("elsewhere.json: 1 story read from a top-level array; 1 done")
  })

  it("a file the loop could not use: the loop's message, exit 1", async () => {
    const broken = await check({ ".opencode/prd.json": '{ "tasks": [ { "id": "T1" } ] }' }, ["plan", "check"])
    expect(broken).toEqual({
      code: 1,
      lines: [
        'ralph-loop plan check: the plan file .opencode/prd.json cannot be used: found "tasks": 1 item, but item 1 (T1) has neither a title nor a description',
      ],
    })
    const missing = await check({}, ["plan", "check"])
    expect(missing).toEqual({
      code: 1,
      lines: ["ralph-loop plan check: the plan file .opencode/prd.json does not exist"],
    })
  })

  it("takes at most a subcommand and a path", () => {
    expect(parseArgs(["plan", "check", "a.json", "b.json"], "/p")).toEqual({ error: "unexpected argument b.json" })
    expect(parseArgs(["doctor", "extra"], "/p")).toEqual({ error: "unexpected argument extra" })
  })
})
