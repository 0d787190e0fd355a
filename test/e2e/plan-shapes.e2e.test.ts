// Plans in the shapes other Ralph tools write, run in the real OpenCode: a top-level array of
// features (no ids, `steps`, `passes`) and a `tasks` list (string priorities, `status` todo/done).
// Each loop works the stories one per iteration, and the plugin marks each in the file's own shape:
// the file at the end is the file at the start with only the done fields changed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r))
const storyOf = (r: MockRequest) => /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]

/** Writes `story-<id>.txt` for the current story, then promises. */
function worker(r: MockRequest): Reply {
  if (isControl(r)) return { text: "OK" }
  const id = storyOf(r)
  if (!id) return { text: "nothing to do" }
  if (r.lastRole === "tool") return { text: `Story ${id} is done.\n<promise>DONE</promise>` }
  return { toolCalls: [{ name: "write", args: { filePath: `story-${id}.txt`, content: `${id}\n` } }] }
}

const fileCheck = { name: "story files", command: "ls story-*.txt", kind: "test" }

function writeText(project: Project, path: string, text: string): void {
  mkdirSync(join(project.dir, ".opencode"), { recursive: true })
  writeFileSync(join(project.dir, path), text)
}

const FEATURES = `[
  {
    "category": "functional",
    "description": "New chat button creates a fresh conversation",
    "steps": ["Click 'New Chat'", "Verify a new conversation is created"],
    "passes": false
  },
  {"category": "style", "description": "Dark mode follows the system", "steps": ["Switch to dark"], "passes": false},
  {
    "category": "functional",
    "description": "Messages are sent with Enter",
    "steps": ["Type", "Press Enter"],
    "passes": false
  }
]
`

const TASKS = `{
  // the billing refactor, by hand
  "title": "Refactor billing",
  "tasks": [
    { "id": "T-1", "title": "Extract invoice module", "priority": "low", "status": "todo" },
    { "id": "T-2", "title": "Add invoice tests", "priority": "high", "status": "todo" },
    { "id": "T-3", "title": "Remove dead code", "priority": "medium", "status": "done" },
    { "id": "T-4", "title": "Rename the module", "priority": "P0", "status": "todo", "depends_on": ["T-1"] }
  ]
}
`

describe("/ralph --prd over the shapes other Ralph tools write", () => {
  it("a top-level array of features: each item in file order, marked `passes: true` in place, every other byte kept (recreate)", async () => {
    const project = await harness().project("plan-array", {
      pluginOptions: { strategy: "recreate", checks: [fileCheck] },
      script: { main: worker },
    })
    writeText(project, "features.json", FEATURES)
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd features.json")
    const done = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(prompted(project).map(storyOf)).toEqual(["1", "2", "3"])
    const first = prompted(project)[0]!.lastUser
    expect(first).toContain("## Current story: 1 (story 1 of 3) — New chat button creates a fresh conversation")
    expect(first).toContain("Acceptance criteria:\n- Click 'New Chat'\n- Verify a new conversation is created")
    expect(prompted(project)[1]!.lastUser).toContain("Story 1 (New chat button creates a fresh conversation) is done")
    expect(done.properties.message).toContain("all 3 stories of the plan are done")
    expect(readFileSync(join(project.dir, "features.json"), "utf8")).toBe(
      FEATURES.replaceAll('"passes": false', '"passes": true'),
    )
  })

  it("a tasks list with string priorities, a status vocabulary and depends_on: by priority, marked with the file's own `done` (continue)", async () => {
    const project = await harness().project("plan-tasks", {
      pluginOptions: { strategy: "continue", checks: [fileCheck] },
      script: { main: worker },
    })
    writeText(project, ".opencode/prd.json", TASKS)
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    const done = await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    // T-3 was done before; T-2 (high) before T-1 (low); T-4 (P0) waits for T-1.
    expect(prompted(project).map(storyOf)).toEqual(["T-2", "T-1", "T-4"])
    expect(prompted(project)[0]!.lastUser).toContain("## Plan progress: .opencode/prd.json — 1 of 4 stories done")
    expect(prompted(project)[0]!.lastUser).toContain("- [ ] T-4 Rename the module (waits for T-1)")
    expect(done.properties.message).toContain("all 4 stories of the plan are done")
    const after = readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")
    expect(after).toBe(TASKS.replaceAll('"status": "todo"', '"status": "done"'))
    // One write per story: the file said T-2 done after the first iteration, T-1 after the second.
    expect(prompted(project)[1]!.lastUser).toContain("- [x] T-2 Add invoice tests (done in iteration 1)")
  })
})
