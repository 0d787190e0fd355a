// Worktree loops in the real OpenCode: each /ralph --worktree makes a git worktree on ralph/<NAME>
// and runs its loop there, in that directory's own OpenCode instance. Two loops run at once and
// change different files; the main work tree sees nothing of it while they run; both are merged
// into the user's branch as they complete; a third, whose merge would conflict, keeps its branch
// and names the file.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import type { Project } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { readWorktreeState } from "../../src/worktrees/worktree-file.js"
import { packageDir, startHarness } from "../harness/harness.js"
import { sharedHarness, waitForToast, harnessGit } from "./helpers.js"

const harness = sharedHarness()

const git = harnessGit(harness)
const worktreeDir = (project: Project, name: string) => join(project.dir, ".opencode/ralph-loop/worktrees", name)
/** The worktree (a slot of a parallel run) whose worktree.json names the story `id` now. */
const storySlot = (project: Project, id: string): string => {
  const root = join(project.dir, ".opencode/ralph-loop/worktrees")
  const name = readdirSync(root).find((n) => readWorktreeState(join(root, n))?.story === id)
  if (!name) throw new Error(`no slot runs story ${id}`)
  return join(root, name)
}
const mergedDir = (project: Project, name: string) => join(project.dir, ".opencode/ralph-loop/merged", name)

/** The settled worktree.json of `name`: in the merged archive once removed, else in the worktree. */
const settled = (project: Project, name: string) =>
  readWorktreeState(mergedDir(project, name)) ?? readWorktreeState(worktreeDir(project, name))

const TASKS = {
  alpha: { file: "alpha.txt", content: "alpha's work\n" },
  beta: { file: "beta.txt", content: "beta's work\n" },
  // Writes the file alpha writes, differently: its merge conflicts once alpha is merged.
  gamma: { file: "alpha.txt", content: "gamma's other work\n" },
} as const
type Token = keyof typeof TASKS

/** Story n of a snarktank-shaped plan: done when S<n>.txt exists. */
const planStory = (n: number, title: string) => ({
  id: `S${n}`,
  title,
  acceptanceCriteria: [`S${n}.txt exists`],
  priority: n,
  passes: false,
})
const writePlan = (project: Project, plan: object) =>
  writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify(plan, null, 2)}\n`)

describe("worktree loops", () => {
  it("two loops run at once in their worktrees and are merged into the user's branch; the main tree saw nothing meanwhile; a third whose merge conflicts keeps its branch and names the file", {
    timeout: 240_000,
  }, async () => {
    const started = { alpha: gate(), beta: gate() }
    const gammaGoes = gate()
    const mainTreeWhileRunning: string[] = []
    let project!: Project
    const reply = (r: MockRequest): Reply => {
      if (r.lastUser.startsWith("A Ralph loop now runs") || r.lastUser.startsWith("[ralph-loop control]"))
        return { text: "OK" }
      const token = /task-(alpha|beta|gamma)/.exec(r.lastUser)?.[1] as Token | undefined
      if (!token) return { text: "OK" }
      const { file, content } = TASKS[token]
      if (r.lastRole === "tool") {
        // The worktree has the file now; the main work tree must not, nor any other change.
        if (!existsSync(join(project.dir, ".opencode/ralph-loop/merged"))) {
          const status = git(project, "status", "--porcelain", "--", ".", ":(exclude).opencode")
          if (status !== "" || existsSync(join(project.dir, "beta.txt")))
            mainTreeWhileRunning.push(`${token}: ${status || "beta.txt"}`)
        }
        return { text: `${file} written. <promise>DONE</promise>` }
      }
      if (token === "alpha" || token === "beta") started[token].open()
      // alpha answers only once beta runs too (they run at once); gamma once both are merged.
      const hold = token === "alpha" ? started.beta.opened : token === "gamma" ? gammaGoes.opened : undefined
      return {
        text: `Writing ${file}.`,
        toolCalls: [{ name: "write", args: { filePath: file, content } }],
        ...(hold ? { holdAfterFirstChunk: hold } : {}),
      }
    }
    project = await harness().project("worktrees", {
      pluginOptions: { mergeStrategy: "merge" },
      script: { main: reply },
    })
    const head = git(project, "rev-parse", "HEAD")
    const branch = git(project, "rev-parse", "--abbrev-ref", "HEAD")

    const session = await project.newSession()
    for (const token of ["alpha", "beta", "gamma"] as const)
      await project.command(session, "ralph", `--worktree ${token}-wt task-${token}: write ${TASKS[token].file}`)
    await waitForToast(project, /^Ralph · worktree gamma-wt/)
    for (const token of ["alpha", "beta", "gamma"])
      expect(git(project, "branch", "--list", `ralph/${token}-wt`)).toContain(`ralph/${token}-wt`)

    // alpha and beta complete and are merged, one after the other, by merge commits.
    const alpha = await waitUntil(() => settled(project, "alpha-wt")?.merge, "alpha merged", 120_000)
    const beta = await waitUntil(() => settled(project, "beta-wt")?.merge, "beta merged", 120_000)
    expect(mainTreeWhileRunning).toEqual([])
    for (const outcome of [alpha, beta]) expect(outcome).toMatchObject({ result: "merged", removed: true })
    expect(readFileSync(join(project.dir, "alpha.txt"), "utf8")).toBe("alpha's work\n")
    expect(readFileSync(join(project.dir, "beta.txt"), "utf8")).toBe("beta's work\n")
    expect(git(project, "rev-parse", "--abbrev-ref", "HEAD")).toBe(branch)
    expect(git(project, "log", "--merges", "--format=%s", `${head}..HEAD`).split("\n").sort()).toEqual([
      "Merge ralph/alpha-wt: task-alpha: write alpha.txt",
      "Merge ralph/beta-wt: task-beta: write beta.txt",
    ])
    // Merged: the worktrees and their branches are gone; each loop's files are kept in merged/. The
    // outcome is written before the removal (so a restart between them still knows it): the moment
    // the removal is over is the settle's toast.
    for (const name of ["alpha-wt", "beta-wt"]) {
      await project.events.waitFor(
        (e) =>
          e.type === "tui.toast.show" &&
          e.properties.title === `Ralph · worktree ${name}` &&
          String(e.properties.message ?? "").includes("merged into"),
        `${name}'s merge toast`,
        60_000,
      )
    }
    for (const name of ["alpha-wt", "beta-wt"]) {
      expect(existsSync(worktreeDir(project, name))).toBe(false)
      expect(git(project, "branch", "--list", `ralph/${name}`)).toBe("")
      expect(existsSync(join(mergedDir(project, name), ".opencode/ralph-loop/loops"))).toBe(true)
    }
    await waitForToast(project, /^Ralph · worktree alpha-wt/)

    // The session it was started from shows them (merged ones from their archive are not listed: their worktree is gone).
    await project.command(session, "ralph-status", "")
    const status =
      project
        .requests("main")
        .filter((r) => r.lastUser.startsWith("[ralph-loop control]"))
        .at(-1)?.lastUser ?? ""
    expect(status).toContain("Worktree loops (.opencode/ralph-loop/worktrees/):")
    expect(status).toMatch(/- gamma-wt · ralph\/gamma-wt · running · iteration 1 of \d+ · task-gamma: write alpha.txt/)

    // gamma, made from the same start, now completes: its merge would conflict in alpha.txt.
    const mergedHead = git(project, "rev-parse", "HEAD")
    gammaGoes.open()
    const gamma = await waitUntil(() => settled(project, "gamma-wt")?.merge, "gamma settled", 120_000)
    expect(gamma).toMatchObject({ result: "conflict", files: ["alpha.txt"] })
    expect(gamma.detail).toContain("would conflict in alpha.txt")
    const toast = await project.events.waitFor(
      (e) => e.type === "tui.toast.show" && String(e.properties.message ?? "").includes("would conflict"),
      "the conflict toast",
      30_000,
    )
    expect(toast.properties.variant).toBe("error")
    expect(git(project, "rev-parse", "HEAD")).toBe(mergedHead)
    expect(git(project, "status", "--porcelain", "--", ".", ":(exclude).opencode")).toBe("")
    expect(readFileSync(join(project.dir, "alpha.txt"), "utf8")).toBe("alpha's work\n")
    expect(git(project, "show", "ralph/gamma-wt:alpha.txt")).toBe("gamma's other work")
    expect(existsSync(worktreeDir(project, "gamma-wt"))).toBe(true)

    // The CLI lists it; clean (--days 0: it ended just now) keeps it (its commit is not in the user's branch) unless --force.
    const cli = (...args: string[]) => {
      try {
        return execFileSync(
          process.execPath,
          [join(packageDir(), "dist/cli/main.js"), ...args, "--project", project.dir],
          { encoding: "utf8", env: { ...process.env, HOME: harness().root } },
        )
      } catch (error) {
        // What the command said (it reports on stdout) belongs in the failure.
        throw new Error(`${String(error)}\nstdout:\n${String((error as { stdout?: unknown }).stdout ?? "")}`)
      }
    }
    expect(cli("worktrees")).toMatch(
      /- gamma-wt · ralph\/gamma-wt · completed after 1 iteration · conflict \(alpha.txt\)/,
    )
    // ralph-loop status lists its loop beside the project's own (read from the worktree's files).
    expect(cli("status")).toMatch(
      /^■ ses_\S+ · worktree gamma-wt · ended completed · iteration 1\/\d+ · .* · task-gamma: write alpha.txt$/m,
    )
    // clean takes the project's lease, which the OpenCode running here holds: it runs while OpenCode is stopped.
    const cleaned: string[] = []
    let keptBeforeForce = false
    await harness().restartServer("SIGTERM", () => {
      cleaned.push(cli("clean"), cli("clean", "--days", "0"))
      keptBeforeForce = existsSync(worktreeDir(project, "gamma-wt"))
      cleaned.push(cli("clean", "--days", "0", "--force"))
    })
    expect(cleaned[0]).toContain("kept the worktree gamma-wt: its loop ended less than 30 days ago")
    expect(cleaned[1]).toContain(
      "kept the worktree gamma-wt: 1 commit on ralph/gamma-wt not in your branch (--force removes it anyway)",
    )
    expect(keptBeforeForce).toBe(true)
    expect(cleaned[2]).toContain(
      "removed the worktree gamma-wt and its branch ralph/gamma-wt; its loop's files are kept in .opencode/ralph-loop/merged/gamma-wt/",
    )
    expect(
      existsSync(join(project.dir, ".opencode/ralph-loop/merged/gamma-wt/.opencode/ralph-loop/worktree.json")),
    ).toBe(true)
    expect(existsSync(worktreeDir(project, "gamma-wt"))).toBe(false)
    expect(git(project, "branch", "--list", "ralph/gamma-wt")).toBe("")
    expect(cli("worktrees")).toContain("No worktree loops in")
  })

  it("SIGKILL of OpenCode while two worktree loops run: after the restart both go on, finish and are merged", {
    timeout: 240_000,
  }, async () => {
    const running = { alpha: gate(), beta: gate() }
    const cutOff = gate()
    const reply = (r: MockRequest): Reply => {
      const token = /task-(alpha|beta)/.exec(r.lastUser)?.[1] as "alpha" | "beta" | undefined
      if (!token || r.lastUser.startsWith("A Ralph loop now runs")) return { text: "OK" }
      const { file, content } = TASKS[token]
      if (r.lastRole === "tool") return { text: `${file} written. <promise>DONE</promise>` }
      if (/restarted while you were working/.test(r.lastUser))
        return { text: `Writing ${file}.`, toolCalls: [{ name: "write", args: { filePath: file, content } }] }
      // The first turn of each streams until the kill.
      running[token].open()
      return { text: "starting", holdAfterFirstChunk: cutOff.opened }
    }
    const killable = await startHarness()
    try {
      const project = await killable.project("worktrees-kill", {
        pluginOptions: { mergeStrategy: "merge" },
        script: { main: reply },
      })
      const session = await project.newSession()
      for (const token of ["alpha", "beta"] as const)
        await project.command(session, "ralph", `--worktree ${token}-wt task-${token}: write ${TASKS[token].file}`)
      await Promise.all([running.alpha.opened, running.beta.opened])
      await killable.restartServer("SIGKILL")
      cutOff.open()
      for (const name of ["alpha-wt", "beta-wt"])
        expect(
          await waitUntil(() => settled(project, name)?.merge, `${name} merged after the restart`, 120_000),
        ).toMatchObject({ result: "merged", removed: true })
      expect(readFileSync(join(project.dir, "alpha.txt"), "utf8")).toBe("alpha's work\n")
      expect(readFileSync(join(project.dir, "beta.txt"), "utf8")).toBe("beta's work\n")
      // Each loop was taken back by its worktree's instance and resumed its iteration once.
      const resumed = project
        .requests("main")
        .filter((r) => r.lastRole === "user" && /restarted while you were working/.test(r.lastUser))
      expect(resumed.map((r) => /task-(alpha|beta)/.exec(r.lastUser)?.[1]).sort()).toEqual(["alpha", "beta"])
    } finally {
      await killable.stop()
    }
  })

  it("--prd --parallel 2 over 4 stories, one depending on another: at most 2 run at once, the dependency waits for its story's merge, all 4 are marked done in the one plan file", {
    timeout: 240_000,
  }, async () => {
    const plan = {
      project: "parallel",
      userStories: [
        planStory(1, "first"),
        planStory(2, "second"),
        { ...planStory(3, "third, on the first"), dependsOn: ["S1"] },
        planStory(4, "fourth"),
      ],
    }
    const s2Started = gate()
    const atOnce: number[] = []
    const s3SawS1: boolean[] = []
    let project!: Project
    // Stories running now: slots whose worktree.json has no outcome yet.
    const worktreesNow = () => {
      const root = join(project.dir, ".opencode/ralph-loop/worktrees")
      return existsSync(root) ? readdirSync(root).filter((n) => !readWorktreeState(join(root, n))?.merge).length : 0
    }
    const reply = (r: MockRequest): Reply => {
      const id = /Story (S\d) of the plan/.exec(r.lastUser)?.[1]
      if (!id) return { text: "OK" }
      if (r.lastRole === "tool") return { text: `${id}.txt written. <promise>DONE</promise>` }
      atOnce.push(worktreesNow())
      if (id === "S2") s2Started.open()
      if (id === "S3") s3SawS1.push(existsSync(join(storySlot(project, "S3"), "S1.txt")))
      // S1 answers once S2 runs too: two loops at once.
      return {
        text: `Writing ${id}.txt.`,
        toolCalls: [{ name: "write", args: { filePath: `${id}.txt`, content: `${id}\n` } }],
        ...(id === "S1" ? { holdAfterFirstChunk: s2Started.opened } : {}),
      }
    }
    project = await harness().project("parallel", { script: { main: reply } })
    writePlan(project, plan)
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd --parallel 2")
    const done = await waitForToast(project, /^Ralph · plan (done|stopped)/, 180_000)
    expect(done.properties.title).toBe("Ralph · plan done")
    expect(Math.max(...atOnce)).toBe(2)
    expect(atOnce.every((n) => n <= 2)).toBe(true)
    expect(s3SawS1).toEqual([true])
    const written = JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")) as typeof plan
    expect(written.userStories.map((s) => [s.id, s.passes])).toEqual([
      ["S1", true],
      ["S2", true],
      ["S3", true],
      ["S4", true],
    ])
    for (const id of ["S1", "S2", "S3", "S4"])
      expect(readFileSync(join(project.dir, `${id}.txt`), "utf8")).toBe(`${id}\n`)
    expect(existsSync(join(project.dir, ".opencode/ralph-loop/parallel.json"))).toBe(false)
  })

  it("--prd --parallel with a check from the settings file that passes at once: a story ends on its claim, not when its first edit passes the check", {
    timeout: 240_000,
  }, async () => {
    const plan = {
      project: "claims",
      userStories: [
        { id: "S1", title: "two steps", acceptanceCriteria: ["S1.txt has both steps"], priority: 1, passes: false },
      ],
    }
    const reply = (r: MockRequest): Reply => {
      if (!/Story S1 of the plan/.test(r.lastUser) || r.lastUser.startsWith("The stories ")) return { text: "OK" }
      const slot = storySlot(project, "S1")
      const step = existsSync(join(slot, "S1.txt")) ? 2 : 1
      if (r.lastRole === "tool")
        return {
          text:
            step === 2 && readFileSync(join(slot, "S1.txt"), "utf8").includes("step 2")
              ? "Both steps written. <promise>DONE</promise>"
              : "Step 1 written; step 2 next.",
        }
      return {
        toolCalls: [
          { name: "write", args: { filePath: "S1.txt", content: step === 1 ? "step 1\n" : "step 1\nstep 2\n" } },
        ],
      }
    }
    const project: Project = await harness().project("parallel-claims", {
      pluginOptions: { checks: [{ name: "lint", command: "true", kind: "lint" }] },
      script: { main: reply },
    })
    writePlan(project, plan)
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd --parallel 1")
    const done = await waitForToast(project, /^Ralph · plan (done|stopped)/, 180_000)
    expect(done.properties.title).toBe("Ralph · plan done")
    expect(readFileSync(join(project.dir, "S1.txt"), "utf8")).toBe("step 1\nstep 2\n")
    const storyPrompts = project
      .requests("main")
      .filter(
        (r) =>
          r.lastRole === "user" && /Story S1 of the plan/.test(r.lastUser) && !r.lastUser.startsWith("The stories "),
      )
    expect(storyPrompts.length).toBeGreaterThanOrEqual(2)
  })

  it("--prd --parallel with a story whose title has an unbalanced quote (Support '90s themes): its loop starts and the plan is done", {
    timeout: 180_000,
  }, async () => {
    // Found in use: the worktree's /ralph refused the story's text as an unclosed quote, nothing recorded it, and the run never ended.
    const plan = {
      project: "quotes",
      userStories: [{ ...planStory(1, "Support '90s themes"), description: 'Say "retro' }],
    }
    const reply = (r: MockRequest): Reply => {
      if (!/Story S1 of the plan/.test(r.lastUser) || r.lastUser.startsWith("The stories ")) return { text: "OK" }
      if (r.lastRole === "tool") return { text: "S1.txt written. <promise>DONE</promise>" }
      return { toolCalls: [{ name: "write", args: { filePath: "S1.txt", content: "S1\n" } }] }
    }
    const project: Project = await harness().project("parallel-quote", { script: { main: reply } })
    writePlan(project, plan)
    const session = await project.newSession()
    await project.command(session, "ralph", "--prd --parallel 1")
    const done = await waitForToast(project, /^Ralph · plan (done|stopped)/, 90_000)
    expect(done.properties.title).toBe("Ralph · plan done")
    const told = project.requests("main").find((r) => r.lastRole === "user" && /Story S1 of the plan/.test(r.lastUser))
    expect(told?.lastUser).toContain(`Story S1 of the plan .opencode/prd.json: Support '90s themes\n\nSay "retro`)
    expect(readFileSync(join(project.dir, "S1.txt"), "utf8")).toBe("S1\n")
  })

  it("--prd --parallel 2 while another worktree loop fills maxParallelLoops 2: the story without a place waits (not failed) and starts once that loop has ended", {
    timeout: 240_000,
  }, async () => {
    const plan = {
      project: "waits",
      userStories: [planStory(1, "first"), planStory(2, "second")],
    }
    const soloGoes = gate()
    const s1Goes = gate()
    const firstAsked: string[] = []
    let soloReleased = false
    const reply = (r: MockRequest): Reply => {
      // The /ralph command turns (told what started) and control prompts answer OK.
      if (
        r.lastUser.startsWith("A Ralph loop now runs") ||
        r.lastUser.startsWith("The stories ") ||
        r.lastUser.startsWith("[ralph-loop control]")
      )
        return { text: "OK" }
      const id =
        /Story (S\d) of the plan/.exec(r.lastUser)?.[1] ?? (r.lastUser.includes("task-solo") ? "solo" : undefined)
      if (!id) return { text: "OK" }
      const file = `${id}.txt`
      if (r.lastRole === "tool") return { text: `${file} written. <promise>DONE</promise>` }
      firstAsked.push(`${id}${soloReleased ? " after solo" : ""}`)
      // S2 runs only once solo has ended; S1 holds until then, so its own end cannot make the place.
      if (id === "S2") s1Goes.open()
      const hold = id === "solo" ? soloGoes.opened : id === "S1" ? s1Goes.opened : undefined
      return {
        text: `Writing ${file}.`,
        toolCalls: [{ name: "write", args: { filePath: file, content: `${id}\n` } }],
        ...(hold ? { holdAfterFirstChunk: hold } : {}),
      }
    }
    const project = await harness().project("parallel-waits", {
      pluginOptions: { maxParallelLoops: 2, mergeStrategy: "merge" },
      script: { main: reply },
    })
    writePlan(project, plan)
    const session = await project.newSession()
    await project.command(session, "ralph", "--worktree solo write task-solo")
    await waitUntil(() => firstAsked.includes("solo"), "the solo worktree loop's first request")
    await project.command(session, "ralph", "--prd --parallel 2")
    await waitUntil(() => firstAsked.includes("S1"), "story S1's first request")
    const runFile = join(project.dir, ".opencode/ralph-loop/parallel.json")
    const waiting = await waitUntil(() => {
      const run = existsSync(runFile)
        ? (JSON.parse(readFileSync(runFile, "utf8")) as {
            running: Array<{ story: string; worktree: string }>
            failed: unknown[]
          })
        : undefined
      return run?.running.some((r) => r.story === "S1") ? run : undefined
    }, "parallel.json with S1 running")
    expect(waiting.running).toEqual([{ story: "S1", worktree: "slot-1" }])
    expect(waiting.failed).toEqual([])
    expect(firstAsked).toEqual(["solo", "S1"])
    // A /ralph --worktree of its own is refused while both places are taken, with the count.
    await project.command(session, "ralph", "--worktree extra-wt write task-extra")
    const refused = await waitForToast(project, /^Ralph · not started/)
    expect(refused.properties.message).toBe(
      "/ralph --worktree: 2 worktree loops run already (maxParallelLoops is 2); wait for one to end or raise the setting",
    )
    expect(existsSync(worktreeDir(project, "extra-wt"))).toBe(false)
    soloReleased = true
    soloGoes.open()
    const done = await waitForToast(project, /^Ralph · plan (done|stopped)/, 180_000)
    expect(done.properties.title).toBe("Ralph · plan done")
    expect(firstAsked).toEqual(["solo", "S1", "S2 after solo"])
    const written = JSON.parse(readFileSync(join(project.dir, ".opencode/prd.json"), "utf8")) as typeof plan
    expect(written.userStories.map((s) => [s.id, s.passes])).toEqual([
      ["S1", true],
      ["S2", true],
    ])
    for (const id of ["solo", "S1", "S2"]) expect(readFileSync(join(project.dir, `${id}.txt`), "utf8")).toBe(`${id}\n`)
  })

  it("the default mergeStrategy ff-or-branch: a branch the user's has not moved is fast-forwarded (no merge commit); one whose base moved meanwhile keeps its branch and says how to merge", {
    timeout: 240_000,
  }, async () => {
    const secondGoes = gate()
    const asked: string[] = []
    const reply = (r: MockRequest): Reply => {
      if (r.lastUser.startsWith("A Ralph loop now runs") || r.lastUser.startsWith("[ralph-loop control]"))
        return { text: "OK" }
      const token = /task-(first|second)/.exec(r.lastUser)?.[1]
      if (!token) return { text: "OK" }
      if (r.lastRole === "tool") return { text: `${token}.txt written. <promise>DONE</promise>` }
      asked.push(token)
      return {
        text: `Writing ${token}.txt.`,
        toolCalls: [{ name: "write", args: { filePath: `${token}.txt`, content: `${token}\n` } }],
        ...(token === "second" ? { holdAfterFirstChunk: secondGoes.opened } : {}),
      }
    }
    const project = await harness().project("worktrees-ff", { script: { main: reply } })
    const start = git(project, "rev-parse", "HEAD")
    const session = await project.newSession()

    await project.command(session, "ralph", "--worktree first-wt task-first: write first.txt")
    expect(await waitUntil(() => settled(project, "first-wt")?.merge, "first settled", 120_000)).toMatchObject({
      result: "fast-forwarded",
      removed: true,
    })
    expect(git(project, "log", "--format=%s", `${start}..HEAD`)).toBe("ralph: task-first: write first.txt")
    expect(git(project, "log", "--merges", "--format=%s", `${start}..HEAD`)).toBe("")
    expect(readFileSync(join(project.dir, "first.txt"), "utf8")).toBe("first\n")

    await project.command(session, "ralph", "--worktree second-wt task-second: write second.txt")
    await waitUntil(() => asked.includes("second"), "the second loop's first request")
    // The user commits on their branch while the second loop works.
    writeFileSync(join(project.dir, "mine.txt"), "the user's own commit\n")
    git(project, "add", "mine.txt")
    git(project, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "-m", "mine")
    const users = git(project, "rev-parse", "HEAD")
    secondGoes.open()
    const second = await waitUntil(() => settled(project, "second-wt")?.merge, "second settled", 120_000)
    expect(second).toMatchObject({ result: "kept" })
    expect(second.detail).toContain("has moved since the loop began")
    expect(second.detail).toContain("git merge ralph/second-wt")
    expect(git(project, "rev-parse", "HEAD")).toBe(users)
    expect(git(project, "branch", "--list", "ralph/second-wt")).toContain("ralph/second-wt")
    expect(git(project, "show", "ralph/second-wt:second.txt")).toBe("second")
    expect(existsSync(join(project.dir, "second.txt"))).toBe(false)
  })

  it("a worktree loop's OpenCode instance runs without OpenCode's snapshots (the project's config has them on) and with the project's model and provider", {
    timeout: 180_000,
  }, async () => {
    const asked = gate()
    const answer = gate()
    const reply = (r: MockRequest): Reply => {
      if (!/task-snap/.test(r.lastUser) || r.lastUser.startsWith("A Ralph loop now runs")) return { text: "OK" }
      if (r.lastRole === "tool") return { text: "snap.txt written. <promise>DONE</promise>" }
      asked.open()
      return {
        text: "Writing snap.txt.",
        toolCalls: [{ name: "write", args: { filePath: "snap.txt", content: "snap\n" } }],
        holdAfterFirstChunk: answer.opened,
      }
    }
    const project = await harness().project("worktree-snapshot", {
      opencodeConfig: { snapshot: true },
      script: { main: reply },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "--worktree snap-wt task-snap: write snap.txt")
    await asked.opened
    // The config OpenCode resolved for the worktree's instance (the one running the loop now).
    const { data } = await createOpencodeClient({
      baseUrl: harness().server.url,
      directory: worktreeDir(project, "snap-wt"),
    }).config.get()
    expect(data?.snapshot).toBe(false)
    expect(data?.model).toBe("mock/mock-model")
    expect(Object.keys(data?.provider ?? {})).toContain("mock")
    answer.open()
    expect(await waitUntil(() => settled(project, "snap-wt")?.merge, "snap settled", 120_000)).toMatchObject({
      result: "fast-forwarded",
      removed: true,
    })
    expect(readFileSync(join(project.dir, "snap.txt"), "utf8")).toBe("snap\n")
  })

  it("a worktree where ralph-loop does not load (its committed settings switch it off): the loop is marked failed with the reason, stops counting, and clean removes it", {
    timeout: 120_000,
  }, async () => {
    const project = await harness().project("worktree-off", { script: { main: [{ text: "OK" }] } })
    // Committed: off. The user's own copy (not committed): on — the worktree gets the committed one.
    writeFileSync(join(project.dir, ".opencode/ralph-loop.jsonc"), `{ "enabled": false }\n`)
    git(project, "add", "-f", ".opencode/ralph-loop.jsonc")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "settings")
    writeFileSync(join(project.dir, ".opencode/ralph-loop.jsonc"), "{}\n")
    const session = await project.newSession()
    await project.command(session, "ralph", "--worktree off-wt do something")
    const failed = await waitUntil(
      () => readWorktreeState(worktreeDir(project, "off-wt"))?.merge,
      "the failed start recorded",
      60_000,
    )
    expect(failed.result).toBe("failed")
    expect(failed.detail).toContain("the loop could not be started in the worktree")
    const toast = await project.events.waitFor(
      (e) => e.type === "tui.toast.show" && String(e.properties.message ?? "").includes("could not be started"),
      "the failure toast",
      30_000,
    )
    expect(toast.properties.variant).toBe("error")
    const cli = (...args: string[]) => {
      try {
        return execFileSync(
          process.execPath,
          [join(packageDir(), "dist/cli/main.js"), ...args, "--project", project.dir],
          { encoding: "utf8", env: { ...process.env, HOME: harness().root } },
        )
      } catch (error) {
        // What the command said (it reports on stdout) belongs in the failure.
        throw new Error(`${String(error)}\nstdout:\n${String((error as { stdout?: unknown }).stdout ?? "")}`)
      }
    }
    expect(cli("worktrees")).toMatch(/- off-wt · ralph\/off-wt · starting · failed/)
    // clean takes the project's lease, which the OpenCode running here holds: it runs while OpenCode is stopped.
    let cleaned = ""
    await harness().restartServer("SIGTERM", () => (cleaned = cli("clean", "--days", "0")))
    expect(cleaned).toContain("removed the worktree off-wt and its branch ralph/off-wt")
    expect(existsSync(worktreeDir(project, "off-wt"))).toBe(false)
  })
})
