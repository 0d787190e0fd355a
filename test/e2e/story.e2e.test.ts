import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToast, harnessGit } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const git = harnessGit(harness)

const PLAN = `${JSON.stringify(
  {
    userStories: [
      { id: "s1", title: "one", acceptanceCriteria: ["s1.txt exists"], priority: 1, passes: false },
      { id: "s2", title: "two", acceptanceCriteria: ["s2.txt exists"], priority: 2, passes: false },
      {
        id: "s3",
        title: "three",
        acceptanceCriteria: ["s3.txt exists"],
        priority: 3,
        passes: false,
        dependsOn: ["s1", "s2"],
      },
    ],
  },
  null,
  2,
)}\n`

/** The story the prompt names writes s<n>.txt, then keeps the promise. */
function storyScript(r: MockRequest): Reply {
  if (isControl(r)) return { text: "OK" }
  const id = /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]
  if (!id) return { text: "nothing to do" }
  if (r.lastRole === "tool") return { text: `Story ${id} is done. <promise>DONE</promise>` }
  return {
    toolCalls: [{ name: "bash", args: { command: `printf '${id}\\n' > ${id}.txt`, description: `Story ${id}` } }],
  }
}

describe("/ralph --prd PATH --story ID", () => {
  it("works that story only and leaves ralph/story-<id> with its work, not the user's untracked file nor the plan, the user's branch as it was", async () => {
    const project = await harness().project("story-only", {
      pluginOptions: { strategy: "continue" },
      script: { main: storyScript },
    })
    writeFileSync(join(project.dir, "plan.json"), PLAN)
    git(project, "add", "plan.json")
    git(project, "-c", "user.name=The User", "-c", "user.email=user@example.invalid", "commit", "-q", "-m", "the plan")
    writeFileSync(join(project.dir, "mine.txt"), "the user's own untracked file\n")
    const head = git(project, "rev-parse", "HEAD")
    const branch = git(project, "symbolic-ref", "--short", "HEAD")

    const session = await project.newSession()
    await project.command(session, "ralph", "--prd plan.json --story s2")
    const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(loop?.plan?.only).toBe("s2")
    expect(loop?.plan?.done.map((d) => d.id)).toEqual(["s2"])
    // Every prompt of the loop was about s2.
    const stories = project
      .requests("main")
      .filter((r) => !isControl(r))
      .map((r) => /^## Current story: (\S+)/m.exec(r.lastUser)?.[1])
      .filter(Boolean)
    expect(new Set(stories)).toEqual(new Set(["s2"]))

    expect(git(project, "log", "--format=%s", "ralph/story-s2")).toBe(`story s2: two\nthe plan\ninit`)
    expect(git(project, "rev-parse", "ralph/story-s2^")).toBe(head)
    expect(git(project, "show", "--name-only", "--format=", "ralph/story-s2")).toBe("s2.txt")
    expect(git(project, "show", "ralph/story-s2:s2.txt")).toBe("s2")
    // The user's checkout: same branch and commit, the plan file as committed, their file and the story's work still there.
    expect(git(project, "symbolic-ref", "--short", "HEAD")).toBe(branch)
    expect(git(project, "rev-parse", "HEAD")).toBe(head)
    expect(readFileSync(join(project.dir, "plan.json"), "utf8")).toBe(PLAN)
    expect(readFileSync(join(project.dir, "mine.txt"), "utf8")).toBe("the user's own untracked file\n")
    expect(
      git(project, "status", "--porcelain", "--untracked-files=all", "--", "s2.txt", "mine.txt", "plan.json")
        .split("\n")
        .sort(),
    ).toEqual(["?? mine.txt", "?? s2.txt"])
    expect(project.events.toasts().filter((t) => /not committed/.test(t.title ?? ""))).toEqual([])

    // A story whose dependencies are not done does not start.
    const other = await project.newSession()
    await project.command(other, "ralph", "--prd plan.json --story s3")
    const refused = await waitForToast(project, /Ralph · not started/)
    expect(String(refused.properties.message)).toBe(
      "/ralph: story s3 is not ready: it depends on s1, s2, not done in plan.json (ralph-loop plan ready lists the stories that can start)",
    )
    expect(project.loops()).toHaveLength(1)
  })
})
