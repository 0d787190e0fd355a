import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { sharedHarness, waitForLoopEnd, waitForToast, harnessGitOutput } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const git = harnessGitOutput(harness)

/** Story S-n writes s<n>.txt; `extra` adds a shell command to a story's turn. */
function storyScript(extra: Record<string, string> = {}) {
  return (r: MockRequest): Reply => {
    if (isControl(r)) return { text: "OK" }
    const id = /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]
    if (!id) return { text: "nothing to do" }
    if (r.lastRole === "tool") return { text: `Story ${id} is done. <promise>DONE</promise>` }
    const n = id.slice(2)
    const command = [`printf '${id}\\n' > s${n}.txt`, extra[id]].filter(Boolean).join(" && ")
    return { toolCalls: [{ name: "bash", args: { command, description: `Story ${id}` } }] }
  }
}

function writePlan(project: Project, count: number): void {
  const userStories = Array.from({ length: count }, (_, i) => ({
    id: `S-${i + 1}`,
    title: `story ${i + 1}`,
    acceptanceCriteria: [`s${i + 1}.txt exists`],
    priority: i + 1,
    passes: false,
  }))
  writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify({ userStories }, null, 2)}\n`)
}

describe("autoCommit on a repository the user is working in", () => {
  it("commits only the stories' files: not one of the user's 2,100 untracked files, and on after the loop deleted a file untracked at its start", async () => {
    const project = await harness().project("auto-commit-user-files", {
      pluginOptions: { strategy: "continue", autoCommit: true },
      script: { main: storyScript({ "S-1": "rm gone.txt" }) },
    })
    writePlan(project, 2)
    git(project, "config", "user.name", "The User")
    git(project, "config", "user.email", "user@example.invalid")
    mkdirSync(join(project.dir, "data"))
    for (let i = 0; i < 2_100; i += 1) writeFileSync(join(project.dir, "data", `f${i}.txt`), `the user's file ${i}\n`)
    writeFileSync(join(project.dir, "gone.txt"), "an untracked file the loop deletes\n")
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(git(project, "log", "--format=%s").trim().split("\n")).toEqual([
      "story S-2: story 2",
      "story S-1: story 1",
      "init",
    ])
    expect(git(project, "show", "--name-only", "--format=", "HEAD~1").trim()).toBe("s1.txt")
    expect(git(project, "show", "--name-only", "--format=", "HEAD").trim()).toBe("s2.txt")
    expect(
      git(project, "status", "--porcelain", "--untracked-files=all", "--", "data").trim().split("\n"),
    ).toHaveLength(2_100)
    expect(project.events.toasts().filter((t) => /not committed/.test(t.title ?? ""))).toEqual([])
  })

  it("a commit that fails (a hook says no) leaves the user's staged work in the index as it was, and the loop goes on", async () => {
    const project = await harness().project("auto-commit-index", {
      pluginOptions: { strategy: "continue", autoCommit: true },
      script: { main: storyScript() },
    })
    writePlan(project, 1)
    git(project, "config", "user.name", "The User")
    git(project, "config", "user.email", "user@example.invalid")
    writeFileSync(join(project.dir, "staged.txt"), "the user staged this\n")
    git(project, "add", "staged.txt")
    const index = readFileSync(join(project.dir, ".git/index"))
    writeFileSync(join(project.dir, ".git/hooks/pre-commit"), "#!/bin/sh\necho 'no commits today' >&2\nexit 1\n", {
      mode: 0o755,
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd")
    await waitForToast(project, /^Ralph · story S-1 not committed/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(readFileSync(join(project.dir, ".git/index")).equals(index)).toBe(true)
    expect(git(project, "status", "--porcelain", "--", "staged.txt", "s1.txt").trim().split("\n")).toEqual([
      "A  staged.txt",
      "?? s1.txt",
    ])
  })
})
