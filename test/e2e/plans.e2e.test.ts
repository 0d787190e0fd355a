// Plan loops in the real OpenCode: /ralph --prd works through a plan's stories one per iteration,
// the plugin (not the model) marks each done after its checks pass, the progress log and the
// report record it; /ralph-plan asks the model for a plan and checks it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { reportFile } from "../harness/loop-files.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { selectedSessions, sessionIDs, sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const PRD = ".opencode/prd.json"
const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
/** The prompts the plugin (or the user) sent: not the model's calls back with a tool result, not control commands. */
const prompted = (project: Project) => project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r))
const storyOf = (r: MockRequest) => /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]

const fileCheck = (id: string) => ({
  name: `${id} file`,
  command: `test -f ${id}.txt || (echo 'FAIL: ${id}.txt is missing'; exit 1)`,
  kind: "test",
})

function writePlan(project: Project, plan: unknown, path = PRD): void {
  mkdirSync(dirname(join(project.dir, path)), { recursive: true })
  writeFileSync(join(project.dir, path), `${JSON.stringify(plan, null, 2)}\n`)
}
const readPlan = (project: Project, path = PRD) => JSON.parse(readFileSync(join(project.dir, path), "utf8"))
const readText = (project: Project, path: string) => readFileSync(join(project.dir, path), "utf8")
const progressEntries = (project: Project) =>
  readText(project, ".opencode/ralph-loop/progress.md")
    .split(/^---$/m)
    .slice(1)
    .filter((e) => e.trim())

/**
 * A model that does the current story's work with the write tool (`${id}.txt`), then promises and
 * writes a learning. `work` may replace the tool calls of a story's turn.
 */
function worker(work: (id: string, r: MockRequest) => Reply | undefined = () => undefined) {
  return (r: MockRequest): Reply => {
    if (isControl(r)) return { text: "OK" }
    const id = storyOf(r)
    if (!id) return { text: "nothing to do" }
    if (r.lastRole === "tool")
      return { text: `Story ${id} is done. <learning>${id} lives in ${id}.txt</learning>\n<promise>DONE</promise>` }
    return work(id, r) ?? { toolCalls: [{ name: "write", args: { filePath: `${id}.txt`, content: `${id} done\n` } }] }
  }
}

/** Three stories whose file order is not their priority order. */
function threeStories(shape: "userStories" | "stories") {
  const stories = [
    { id: "US-A", title: "third by priority", priority: 3, estimate: "1h" },
    { id: "US-B", title: "first by priority", priority: 1 },
    { id: "US-C", title: "second by priority", priority: 2 },
  ]
  return shape === "userStories"
    ? {
        project: "Shop",
        branchName: "ralph/shop",
        owner: { team: "web" },
        userStories: stories.map((s) => ({
          ...s,
          description: `As a user I want ${s.id}`,
          acceptanceCriteria: [`${s.id}.txt exists`],
          passes: false,
          checks: [fileCheck(s.id)],
        })),
      }
    : {
        id: "prd-1",
        task: "Build the shop",
        status: "pending",
        owner: { team: "web" },
        stories: stories.map((s) => ({
          ...s,
          acceptance_criteria: [`${s.id}.txt exists`],
          status: "pending",
          checks: [fileCheck(s.id)],
        })),
      }
}

describe("/ralph --prd", () => {
  it.each([
    ["userStories", "recreate"],
    ["stories", "continue"],
  ] as const)(
    "works through a 3-story plan (%s shape, %s): one story per iteration in priority order, marked done by the plugin in the file's own shape",
    async (shape, strategy) => {
      // The plan file as the model first sees it: seed 003's shape marks the story being worked on.
      let atFirstStory: { stories?: Array<{ id: string; status: string }>; status?: string } | undefined
      const project = await harness().project(`plan-${shape}`, {
        pluginOptions: { strategy },
        script: {
          main: worker(() => {
            atFirstStory ??= readPlan(project)
            return undefined
          }),
        },
      })
      writePlan(project, threeStories(shape))
      const session = await project.newSession()
      await project.command(session, "ralph", "--prd")
      const done = await waitForToast(project, /^Ralph · done/)
      await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

      // Exactly three iterations, each on the next story by priority.
      expect(prompted(project).map(storyOf)).toEqual(["US-B", "US-C", "US-A"])
      const [first, second, third] = prompted(project).map((r) => r.lastUser)
      expect(first).toContain("## Current story: US-B (story 1 of 3) — first by priority")
      expect(first).toContain("Acceptance criteria:\n- US-B.txt exists")
      expect(first).toContain("Checks the plugin runs when you say it is done: US-B file (`test -f US-B.txt")
      expect(first).toContain("## Plan progress: .opencode/prd.json — 0 of 3 stories done")
      expect(second).toContain(
        "Story US-B (first by priority) is done: the plugin ran the checks (US-B file), they pass, and marked it in the plan. Now work on story US-C.",
      )
      expect(second).toContain("- [x] US-B first by priority (done in iteration 1)")
      expect(third).toContain("## Current story: US-A (story 3 of 3)")
      // The newest progress-log entries and the learnings go into the next prompts.
      expect(third).toContain("- US-B lives in US-B.txt")
      expect(third).toMatch(/iteration 2 · story US-C/)
      if (shape === "userStories") expect(first).toContain("As a user I want US-B")

      // The file ends with every story done, in its own shape, everything else kept.
      const plan = readPlan(project)
      expect(plan.owner).toEqual({ team: "web" })
      if (shape === "userStories") {
        expect(plan.userStories.map((s: { passes: boolean }) => s.passes)).toEqual([true, true, true])
        expect(plan.userStories.map((s: { notes: string }) => s.notes)).toEqual(
          [3, 1, 2].map(
            (n, i) => `Verified by ralph-loop in iteration ${n}: ${["US-A", "US-B", "US-C"][i]} file passed`,
          ),
        )
        expect(plan.userStories[0].estimate).toBe("1h")
        expect(plan.branchName).toBe("ralph/shop")
      } else {
        expect(plan.stories.map((s: { status: string; iteration: number }) => [s.status, s.iteration])).toEqual([
          ["completed", 3],
          ["completed", 1],
          ["completed", 2],
        ])
        expect(plan.task).toBe("Build the shop")
        // Seed 003's plan status and in-progress mark, as its PRD format has them.
        expect(atFirstStory?.status).toBe("in_progress")
        expect(atFirstStory?.stories?.map((s) => s.status)).toEqual(["pending", "in_progress", "pending"])
        expect(plan.status).toBe("completed")
      }

      // The progress log has one entry per iteration; the report lists the stories.
      const entries = progressEntries(project)
      expect(entries).toHaveLength(3)
      expect(entries[0]).toContain("· iteration 1 · story US-B")
      expect(entries[0]).toContain("- Outcome: story US-B done — checks passed: US-B file")
      expect(readText(project, ".opencode/ralph-loop/progress.md")).toMatch(
        /## Codebase Patterns\n- US-B lives in US-B.txt\n- US-C lives in US-C.txt\n- US-A lives in US-A.txt\n/,
      )
      // Written a moment after the loop's end is saved.
      await waitUntil(() => existsSync(reportFile(project.dir, session)), "the report")
      const report = readFileSync(reportFile(project.dir, session), "utf8")
      expect(report).toContain("## Stories (.opencode/prd.json: 3 of 3 done)")
      expect(report).toContain("| US-B | first by priority | done | 1 | US-B file |")
      expect(report).toContain("| US-A | third by priority | done | 3 | US-A file |")

      // Toasts name the story; one success toast at the end.
      const titles = project.events.toasts().map((t) => t.title ?? "")
      // A plan's iterations count over the whole plan: maxIterations (50).
      expect(titles).toContain("Ralph 2/50 · story US-C (2 of 3) · second by priority")
      expect(titles).toContain("Ralph 3/50 · story US-A (3 of 3) · third by priority")
      expect(project.events.toasts().filter((t) => t.variant === "success")).toHaveLength(1)
      expect(done.properties.message).toContain("finished in 3 iterations (all 3 stories of the plan are done")

      // A fresh session per story for recreate, the same one for continue.
      expect(selectedSessions(project)).toHaveLength(strategy === "recreate" ? 2 : 0)
      if (strategy === "continue") expect(await sessionIDs(project)).toEqual([session])
    },
  )

  it("a 12-story plan on the default settings completes, some stories taking two iterations: the retries are each story's own", async () => {
    // Every third story's first try writes its file but does not claim it done; the next iteration does.
    const tries = new Map<string, number>()
    const project = await harness().project("plan-twelve", {
      script: {
        main: worker((id, r) => {
          if (r.lastRole !== "user") return undefined
          const attempt = (tries.get(id) ?? 0) + 1
          tries.set(id, attempt)
          return Number(id.slice(3)) % 3 === 0 && attempt === 1
            ? { text: `Started ${id}; it needs another pass.` }
            : undefined
        }),
      },
    })
    const stories = Array.from({ length: 12 }, (_, i) => `US-${i + 1}`)
    writePlan(project, {
      userStories: stories.map((id, i) => ({
        id,
        title: `story ${i + 1}`,
        acceptanceCriteria: [`${id}.txt exists`],
        priority: i + 1,
        passes: false,
        checks: [fileCheck(id)],
      })),
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 180_000)
    expect(prompted(project).map(storyOf)).toEqual(stories.flatMap((id, i) => ((i + 1) % 3 === 0 ? [id, id] : [id])))
    expect(loop?.iteration).toBe(16)
    expect(readPlan(project).userStories.every((s: { passes: boolean }) => s.passes)).toBe(true)
    expect(project.events.toasts().map((t) => t.title ?? "")).toContain(
      "Ralph 16/50 · story US-12 (12 of 12) · story 12",
    )
  })

  it("a story whose check fails after the promise comes again with the failure; it is done only after the fix", async () => {
    const project = await harness().project("plan-failing-check", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: worker((id, r) => {
          // The first try at US-1 writes the wrong content.
          const fixing = r.lastUser.includes("the completion claim was rejected")
          return id === "US-1"
            ? {
                toolCalls: [
                  { name: "write", args: { filePath: "US-1.txt", content: fixing ? "fixed\n" : "broken\n" } },
                ],
              }
            : undefined
        }),
      },
    })
    writePlan(project, {
      userStories: [
        {
          id: "US-1",
          title: "fix it",
          acceptanceCriteria: ["US-1.txt says fixed"],
          passes: false,
          checks: [
            { name: "fixed", command: "grep -q fixed US-1.txt || (echo 'FAIL: US-1.txt does not say fixed'; exit 1)" },
          ],
        },
        { id: "US-2", title: "then this", acceptanceCriteria: [], passes: false, checks: [fileCheck("US-2")] },
      ],
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd .opencode/prd.json finish the shop")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(prompted(project).map(storyOf)).toEqual(["US-1", "US-1", "US-2"])
    const retry = prompted(project)[1]!.lastUser
    expect(retry).toContain("the completion claim was rejected")
    expect(retry).toContain("FAIL: US-1.txt does not say fixed")
    expect(retry).toContain("## Plan progress: .opencode/prd.json — 0 of 2 stories done")
    expect(prompted(project)[0]!.lastUser).toContain("## Task\nfinish the shop")
    const plan = readPlan(project)
    expect(plan.userStories.map((s: { notes: string }) => s.notes)).toEqual([
      "Verified by ralph-loop in iteration 2: fixed passed",
      "Verified by ralph-loop in iteration 3: US-2 file passed",
    ])
    const entries = progressEntries(project)
    expect(entries).toHaveLength(3)
    expect(entries[0]).toContain("- Failing checks: fixed (failed)")
    expect(entries[0]).toContain("- Outcome: not done yet: Ralph Loop: CONTINUE")
  })

  it("a story the model marks done itself is not counted, and the file is rewritten from the plugin's record", async () => {
    const seenAtPrompt: unknown[] = []
    const seenAfterForging: unknown[] = []
    const passes = () => readPlan(project).userStories.map((s: { passes: boolean }) => s.passes)
    const work = worker((id) => {
      // What the file said when the plugin prompted for this story.
      seenAtPrompt.push(passes())
      if (id !== "US-1") return undefined
      // Does US-1's work and also claims US-2 (not done: US-2.txt is never written here).
      const forged = readText(project, PRD).replace(/"passes": false/g, '"passes": true')
      return {
        toolCalls: [
          { name: "write", args: { filePath: "US-1.txt", content: "done\n" } },
          { name: "write", args: { filePath: PRD, content: forged } },
        ],
      }
    })
    let project!: Project
    project = await harness().project("plan-model-marks", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest) => {
          // The forged file really landed: the model sees it after its tool calls.
          if (r.lastRole === "tool" && storyOf(r) === "US-1") seenAfterForging.push(passes())
          return work(r)
        },
      },
    })
    writePlan(project, {
      userStories: [
        { id: "US-1", title: "one", acceptanceCriteria: [], priority: 1, passes: false, checks: [fileCheck("US-1")] },
        { id: "US-2", title: "two", acceptanceCriteria: [], priority: 2, passes: false, checks: [fileCheck("US-2")] },
      ],
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    expect(prompted(project).map(storyOf)).toEqual(["US-1", "US-2"])
    expect(seenAfterForging).toEqual([[true, true]])
    // When US-2's prompt went out, the forged `passes: true` had been set back.
    expect(seenAtPrompt).toEqual([
      [false, false],
      [true, false],
    ])
    expect(readPlan(project).userStories.map((s: { passes: boolean; notes: string }) => [s.passes, s.notes])).toEqual([
      [true, "Verified by ralph-loop in iteration 1: US-1 file passed"],
      [true, "Verified by ralph-loop in iteration 2: US-2 file passed"],
    ])
    expect(existsSync(join(project.dir, "US-2.txt"))).toBe(true)
  })

  it("a story waits for the stories it dependsOn even with a higher priority; /ralph-status lists the stories", async () => {
    const project = await harness().project("plan-depends", {
      pluginOptions: { strategy: "continue", autoRestart: false },
      script: { main: worker() },
    })
    writePlan(project, {
      userStories: [
        {
          id: "US-API",
          title: "the endpoint",
          acceptanceCriteria: [],
          priority: 1,
          passes: false,
          dependsOn: ["US-DB"],
          checks: [fileCheck("US-API")],
        },
        {
          id: "US-DB",
          title: "the table",
          acceptanceCriteria: [],
          priority: 2,
          passes: false,
          checks: [fileCheck("US-DB")],
        },
      ],
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    // autoRestart off: after a story the loop pauses (the user goes on with /ralph-resume).
    const paused = await waitForToast(project, /^Ralph · paused/)
    expect(paused.properties.message).toContain("story US-DB is done; autoRestart is off")
    await project.command(session, "ralph-status", "")
    const statusReply = project.requests("main").filter(isControl).at(-1)?.lastUser ?? ""
    expect(statusReply).toContain("Plan: .opencode/prd.json — 1 of 2 stories done")
    expect(statusReply).toContain("✓ US-DB the table — done (iteration 1)")
    expect(statusReply).toContain("→ US-API the endpoint — current")
    await project.command(session, "ralph-resume", "")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(prompted(project).map(storyOf)).toEqual(["US-DB", "US-API"])
    expect(prompted(project)[0]!.lastUser).toContain("- [ ] US-API the endpoint (waits for US-DB)")
  })

  it("a plan file that cannot be used starts nothing and names the file, what was found and the item", async () => {
    const project = await harness().project("plan-broken", { script: { main: [{ text: "No loop was started." }] } })
    writePlan(
      project,
      {
        userStories: [
          { id: "US-1", title: "ok", acceptanceCriteria: [], passes: false },
          { id: "US-2", passes: false },
        ],
      },
      "plans/prd.json",
    )
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd plans/prd.json")
    const toast = (await waitForToast(project, /^Ralph · not started/)).properties
    await project.waitForIdle()
    expect(toast.message).toBe(
      '/ralph: the plan file plans/prd.json cannot be used: found "userStories": 2 items, but item 2 (US-2) has neither a title nor a description',
    )
    expect(project.requests("main")).toHaveLength(1)
    expect(project.requests("main")[0]?.lastUser).toContain(
      'no Ralph loop was started: the plan file plans/prd.json cannot be used: found "userStories": 2 items, but item 2 (US-2) has neither a title nor a description',
    )
    expect(existsSync(join(project.dir, ".opencode/ralph-loop/loops"))).toBe(false)
    expect(project.requests("main")[0]?.system).not.toContain("Ralph loop mode")
  })
})

describe("/ralph-plan", () => {
  const validPlan = JSON.stringify(
    {
      project: "Todo",
      userStories: ["add", "list", "delete"].map((w, i) => ({
        id: `US-00${i + 1}`,
        title: `${w} todos`,
        acceptanceCriteria: [`can ${w}`],
        priority: i + 1,
        passes: false,
      })),
    },
    null,
    2,
  )

  it("an invalid plan gets one more ask with the problems; the valid one gets the toast with the count; no loop starts", async () => {
    const project = await harness().project("ralph-plan", {
      script: {
        main: (r: MockRequest) => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastRole === "tool") return { text: "The plan is written." }
          const retry = r.lastUser.includes("is not valid yet")
          const content = retry
            ? validPlan
            : JSON.stringify({
                userStories: [
                  { id: "US-001", title: "add todos", acceptanceCriteria: [] },
                  { id: "US-001", title: "list todos", acceptanceCriteria: [] },
                ],
              })
          return { toolCalls: [{ name: "write", args: { filePath: PRD, content } }] }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph-plan", "a todo app")
    const ready = await waitForToast(project, /^Ralph · plan ready/)
    await project.waitForIdle()
    expect(ready.properties.title).toBe("Ralph · plan ready — 3 stories")
    const asks = project.requests("main").filter((r) => r.lastRole === "user")
    expect(asks).toHaveLength(2)
    expect(asks[0]!.lastUser).toContain("Write a plan for the task below as a JSON file at `.opencode/prd.json`")
    expect(asks[0]!.lastUser).toContain("a todo app")
    expect(asks[1]!.lastUser).toContain('- found "userStories": 2 items, but items 1 and 2 have the same id "US-001"')
    expect(readText(project, PRD)).toBe(validPlan)
    expect(existsSync(join(project.dir, ".opencode/ralph-loop/loops"))).toBe(false)
    expect(asks.every((r) => !r.system.includes("Ralph loop mode"))).toBe(true)

    // /ralph-status shows the plan.
    await project.command(session, "ralph-status", "")
    const status = project.requests("main").filter(isControl).at(-1)?.lastUser ?? ""
    expect(status).toContain("Plan .opencode/prd.json (Todo): 3 stories, 0 done — /ralph --prd works through it")
    expect(status).toContain("· US-002 list todos")
  })

  it("a plan still invalid after the second ask gets an error toast naming the problem", async () => {
    const project = await harness().project("ralph-plan-invalid", {
      script: {
        main: (r: MockRequest) =>
          r.lastRole === "tool"
            ? { text: "Written." }
            : { toolCalls: [{ name: "write", args: { filePath: PRD, content: JSON.stringify({ userStories: [] }) } }] },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph-plan", "something")
    const invalid = await waitForToast(project, /^Ralph · plan not valid/)
    await project.waitForIdle()
    expect(invalid.properties.message).toContain(
      'the plan file .opencode/prd.json cannot be used: found "userStories": 0 items — a plan needs at least one story',
    )
    expect(project.requests("main").filter((r) => r.lastRole === "user")).toHaveLength(2)
    expect(project.events.toasts().some((t) => t.title?.startsWith("Ralph · plan ready"))).toBe(false)
  })
})

describe("the progress entry's files, the plugin's own writes aside", () => {
  it("a plan outside .opencode/: its write-back is not the loop's work; the model's own change to the plan is", async () => {
    const file = "prd.json"
    const project = await harness().project("plan-own-writes", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: worker((id) => {
          if (id !== "US-2") return undefined
          // The model rewords a story in the plan (on top of the plugin's write-back of US-1).
          const plan = readText(project, file).replace('"the checkout"', '"the checkout, with cards"')
          return {
            toolCalls: [
              { name: "write", args: { filePath: "US-2.txt", content: "US-2 done\n" } },
              { name: "write", args: { filePath: file, content: plan } },
            ],
          }
        }),
      },
    })
    writePlan(
      project,
      {
        userStories: [
          {
            id: "US-1",
            title: "the cart",
            acceptanceCriteria: ["US-1.txt exists"],
            priority: 1,
            passes: false,
            checks: [fileCheck("US-1")],
          },
          {
            id: "US-2",
            title: "the checkout",
            acceptanceCriteria: ["US-2.txt exists"],
            priority: 2,
            passes: false,
            checks: [fileCheck("US-2")],
          },
        ],
      },
      file,
    )
    const session = await project.newSession()
    await project.command(session, "ralph", `--prd ${file}`)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(prompted(project).map(storyOf)).toEqual(["US-1", "US-2"])
    const plan = readPlan(project, file)
    expect(plan.userStories.map((s: { passes: boolean; title: string }) => [s.title, s.passes])).toEqual([
      ["the cart", true],
      ["the checkout, with cards", true],
    ])

    const filesLine = (entry: string | undefined) =>
      /^- Files changed since the loop began: (.*)$/m.exec(entry ?? "")?.[1]
    const entries = progressEntries(project)
    expect(entries).toHaveLength(2)
    // Iteration 1: the plugin marked US-1 done in prd.json; the loop's work is US-1.txt alone.
    expect(filesLine(entries[0])).toBe("US-1.txt")
    // Iteration 2: the model changed the plan's content besides the plugin's record: it is listed.
    expect(filesLine(entries[1])).toBe("US-1.txt, US-2.txt, prd.json")
  })
})
