import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { readWorktreeState } from "../../src/worktrees/worktree-file.js"
import { sharedHarness, waitForToast, harnessGit } from "./helpers.js"

const harness = sharedHarness()

const git = harnessGit(harness)

const story = (n: number) => ({
  id: `S${n}`,
  title: `story ${n}`,
  acceptanceCriteria: [`S${n}.txt exists`],
  priority: n,
  passes: false,
})

function writePlan(project: Project, stories: number): void {
  const plan = { project: "slots", userStories: Array.from({ length: stories }, (_, i) => story(i + 1)) }
  writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify(plan, null, 2)}\n`)
}

const planDone = (project: Project): Array<[string, boolean]> =>
  (
    JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")) as {
      userStories: Array<{ id: string; passes: boolean }>
    }
  ).userStories.map((s) => [s.id, s.passes])

/** The OpenCode instances ralph-loop started in the project's worktrees, from OpenCode's own log of this server. */
function instanceStarts(project: Project): string[] {
  const worktrees = join(project.dir, ".opencode/ralph-loop/worktrees/")
  return harness()
    .server.output()
    .split("\n")
    .filter((line) => line.includes("ralph-loop instance started"))
    .map((line) => /directory=(\S+)/.exec(line)?.[1] ?? "")
    .filter((directory) => directory.startsWith(worktrees))
}

/** Each story: one reply writing its file, one claiming done — unless `fails` says it never claims. */
const storyReply =
  (fails: (id: string) => boolean = () => false) =>
  (r: MockRequest): Reply => {
    const id = /Story (S\d) of the plan/.exec(r.lastUser)?.[1]
    if (!id || r.lastUser.startsWith("The stories ")) return { text: "OK" }
    if (r.lastRole === "tool")
      return { text: fails(id) ? `${id}.txt written; more to do.` : `${id} done. <promise>DONE</promise>` }
    return { toolCalls: [{ name: "write", args: { filePath: `${id}.txt`, content: `${id}\n` } }] }
  }

describe("parallel plan runs in slots", () => {
  it("a plan of 6 stories on 2 slots completes: every story merged and marked, in exactly 2 OpenCode instances; nothing of the slots is left", {
    timeout: 300_000,
  }, async () => {
    const project = await harness().project("slots-six", { script: { main: storyReply() } })
    writePlan(project, 6)
    const head = git(project, "rev-parse", "HEAD")
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd --parallel 2")
    const done = await waitForToast(project, /^Ralph · plan (done|stopped)/, 240_000)
    expect(done.properties.title).toBe("Ralph · plan done")
    expect(planDone(project)).toEqual(["S1", "S2", "S3", "S4", "S5", "S6"].map((id) => [id, true]))
    for (let n = 1; n <= 6; n += 1) expect(readFileSync(join(project.dir, `S${n}.txt`), "utf8")).toBe(`S${n}\n`)
    const merges = git(project, "log", "--merges", "--format=%s", `${head}..HEAD`).split("\n").sort()
    expect(merges.map((m) => m.split(":")[0])).toEqual([1, 2, 3, 4, 5, 6].map((n) => `Merge ralph/story-s${n}`))
    // Two slots, each one instance for all its stories.
    const starts = instanceStarts(project)
    expect(starts.map((d) => d.slice(d.lastIndexOf("/") + 1)).sort()).toEqual(["slot-1", "slot-2"])
    // Each story's loop files are kept under its own name, with the outcome.
    for (let n = 1; n <= 6; n += 1) {
      const archived = readWorktreeState(join(project.dir, `.opencode/ralph-loop/merged/story-s${n}`))
      expect(archived?.story).toBe(`S${n}`)
      expect(archived?.merge?.result).toBe("merged")
    }
    // The run is over: no slot, no story branch (each merged), no worktree git knows of but the project.
    const root = join(project.dir, ".opencode/ralph-loop/worktrees")
    expect(existsSync(root) ? readdirSync(root) : []).toEqual([])
    expect(git(project, "branch", "--list", "ralph/*")).toBe("")
    expect(git(project, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1)
    expect(existsSync(join(project.dir, ".opencode/ralph-loop/parallel.json"))).toBe(false)
  })

  it("a story that does not complete in a slot leaves its work on its branch, and the slot goes on with the next story", {
    timeout: 240_000,
  }, async () => {
    const project = await harness().project("slots-fail", { script: { main: storyReply((id) => id === "S1") } })
    writePlan(project, 2)
    const head = git(project, "rev-parse", "HEAD")
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd --parallel 1 --max-iterations 2")
    const stopped = await waitForToast(project, /^Ralph · plan (done|stopped)/, 180_000)
    expect(stopped.properties.title).toBe("Ralph · plan stopped")
    expect(stopped.properties.message).toContain("1 of 2 stories")
    expect(planDone(project)).toEqual([
      ["S1", false],
      ["S2", true],
    ])
    // S1's work is committed on its branch, which is kept; S2's is merged.
    expect(git(project, "show", "ralph/story-s1:S1.txt")).toBe("S1")
    expect(git(project, "log", "--format=%s", "-1", "ralph/story-s1")).toContain("(not completed: max-iterations)")
    expect(git(project, "merge-base", "--is-ancestor", head, "ralph/story-s1")).toBe("")
    expect(existsSync(join(project.dir, "S1.txt"))).toBe(false)
    expect(readFileSync(join(project.dir, "S2.txt"), "utf8")).toBe("S2\n")
    expect(readWorktreeState(join(project.dir, ".opencode/ralph-loop/merged/story-s1"))?.merge?.result).toBe("kept")
    // One slot ran both stories in one instance, and is gone.
    expect(instanceStarts(project).map((d) => d.slice(d.lastIndexOf("/") + 1))).toEqual(["slot-1"])
    const root = join(project.dir, ".opencode/ralph-loop/worktrees")
    expect(existsSync(root) ? readdirSync(root) : []).toEqual([])
    expect(git(project, "branch", "--list", "ralph/*")).toBe("ralph/story-s1")
  })

  it("/cancel-ralph in the run's session as a slot is reset for the next story: the run ends cancelled, no slot, worktree or branch of it is left", {
    timeout: 240_000,
  }, async () => {
    const s2Holds = gate()
    const reply = storyReply()
    const project = await harness().project("slots-cancel", {
      script: {
        // S2's loop, if it starts at all, does nothing before the cancel: its reply waits until the test ends.
        main: (r) =>
          /Story S2 of the plan/.test(r.lastUser) && !r.lastUser.startsWith("The stories ")
            ? { text: "Working on S2.", holdAfterFirstChunk: s2Holds.opened }
            : reply(r),
      },
    })
    try {
      writePlan(project, 2)
      const session = await project.newSession()
      await project.command(session, "ralph", "--prd --parallel 1")
      // S1 is settled in its slot; the slot's reset for S2 follows at once, and the cancel meets it.
      await waitForToast(project, /^Ralph · story S1$/, 120_000)
      await project.command(session, "cancel-ralph", "")
      const end = await waitForToast(project, /^Ralph · plan (done|stopped|cancelled)/, 120_000)
      expect(end.properties.title).toBe("Ralph · plan cancelled")
      expect(planDone(project)).toEqual([
        ["S1", true],
        ["S2", false],
      ])
      expect(readFileSync(join(project.dir, "S1.txt"), "utf8")).toBe("S1\n")
      const root = join(project.dir, ".opencode/ralph-loop/worktrees")
      expect(existsSync(root) ? readdirSync(root) : []).toEqual([])
      expect(git(project, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1)
      expect(git(project, "branch", "--list", "ralph/*")).toBe("")
      expect(existsSync(join(project.dir, ".opencode/ralph-loop/parallel.json"))).toBe(false)
      expect(instanceStarts(project).map((d) => d.slice(d.lastIndexOf("/") + 1))).toEqual(["slot-1"])
    } finally {
      s2Holds.open()
    }
  })
})
