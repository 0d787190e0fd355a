// `ralph-loop run` against the real `opencode serve` it starts itself: one exit code per class of
// ending, a line per decided iteration, and no server left behind.
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { packageDir } from "../harness/harness.js"
import { alive, runSetup, serverPid, startRun } from "./run-helpers.js"

const setup = runSetup()

describe("ralph-loop run: how a loop ends is its exit code", () => {
  it("completed: exit 0, a line for the start, each iteration and the end with its report; the server it started is gone", async () => {
    const project = setup().project("run-completed", {
      script: { main: [{ text: "working on it" }, { text: "All finished. <promise>DONE</promise>" }] },
    })
    const run = startRun(setup(), project, ["build the widget", "--max-iterations", "5"])
    const code = await run.exit()
    const lines = run.lines()
    expect(code, run.stderr()).toBe(EXIT.completed)
    expect(lines.find((l) => l.startsWith("loop "))).toMatch(
      /^loop ses_\S+ started at iteration 1: build the widget — /,
    )
    expect(
      lines.filter((l) => /^iteration \d+: /.test(l)).map((l) => /^iteration (\d+): (\w+)/.exec(l)?.slice(1).join(" ")),
    ).toEqual(["1 restart", "2 complete"])
    expect(lines.at(-1)).toMatch(
      /^ended: completed after 2 iterations · [\d,]+ tokens · \$[\d.]+ — the promise was kept · not verified: no check ran · report \S+ralph_report\.md \(exit 0\)$/,
    )
    expect(setup().requests("run-completed", "main")).toHaveLength(2)
    const pid = serverPid(lines)
    expect(pid).toBeGreaterThan(0)
    expect(alive(pid as number)).toBe(false)
  })

  it("completed, with --json: the end event carries the evidence (verified, each check's exit code and test counts)", async () => {
    const summary = "printf ' Test Files  1 passed (1)\\n      Tests  3 passed | 1 skipped (4)\\n'"
    const project = setup().project("run-evidence", {
      pluginOptions: { checks: [{ name: "unit", kind: "test", command: summary }] },
      script: { main: [{ text: "All finished. <promise>DONE</promise>" }] },
    })
    const run = startRun(setup(), project, ["build the widget", "--max-iterations", "3"], { json: true })
    expect(await run.exit(), run.stderr()).toBe(EXIT.completed)
    const end = run.events().at(-1)
    expect(end).toMatchObject({
      type: "ended",
      outcome: "completed",
      evidence: {
        verified: true,
        checks: [
          {
            name: "unit",
            command: summary,
            exitCode: 0,
            tests: { passed: 3, failed: 0, skipped: 1 },
            outputSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          },
        ],
        changedFiles: [],
        review: null,
        weakened: [],
      },
    })
  })

  it("a limit reached: --max-iterations 2 on a model that never finishes exits 3 with the reason", async () => {
    const project = setup().project("run-limit", {
      script: { main: (r) => ({ text: `still working, part ${r.index}` }) },
    })
    const run = startRun(setup(), project, ["never done", "--max-iterations", "2", "--strategy", "continue"])
    const code = await run.exit()
    expect(code, run.stderr()).toBe(EXIT.limit)
    expect(run.lines().at(-1)).toMatch(/^ended: max-iterations after 2 iterations .*\(exit 3\)$/)
    expect(alive(serverPid(run.lines()) as number)).toBe(false)
  })

  it("gave up (stagnation), with --json: every line an event of the schema, the end's exit code 4", async () => {
    const project = setup().project("run-stagnation", {
      pluginOptions: {
        checks: [{ name: "types", kind: "typecheck", command: 'echo "src/a.ts(1,1): error TS2322: nope"; exit 2' }],
      },
      script: { main: (r) => ({ text: `attempt ${"x".repeat(r.index + 1)} <promise>DONE</promise>` }) },
    })
    const run = startRun(
      setup(),
      project,
      ["fix the types", "--strategy", "continue", "--stagnation-limit", "2", "--max-retries", "10"],
      { json: true },
    )
    const code = await run.exit()
    expect(code, run.stderr()).toBe(EXIT.gaveUp)
    // events() parses each line with the schema.
    const events = run.events()
    expect(events.map((e) => e.type)).toEqual(["host", "started", "iteration", "iteration", "iteration", "ended"])
    expect(events.filter((e) => e.type === "iteration").map((e) => e.checks?.errors)).toEqual([1, 1, 1])
    expect(events.at(-1)).toMatchObject({
      type: "ended",
      outcome: "stagnation",
      exitCode: 4,
      iteration: 3,
      detail: expect.stringContaining("stagnationLimit"),
      evidence: null,
    })
    expect(new Set(events.map((e) => e.loop).slice(1))).toEqual(new Set([events[1]?.loop]))
  })

  it("an auth error: the provider answers 401, exit 5", async () => {
    const project = setup().project("run-auth", {
      script: { main: [{ error: { status: 401, message: "Incorrect API key provided" } }] },
    })
    const run = startRun(setup(), project, ["a task"])
    expect(await run.exit(), run.stderr()).toBe(EXIT.auth)
    expect(run.lines().at(-1)).toMatch(/^ended: auth-error after 1 iteration .*Incorrect API key provided.*\(exit 5\)$/)
  })

  it("the plugin not installed for the project: says so with the fix, exit 1, no server started", async () => {
    const project = setup().project("run-no-plugin", { withPlugin: false })
    const run = startRun(setup(), project, ["a task"])
    expect(await run.exit()).toBe(EXIT.runnerFailure)
    expect(run.stderr()).toContain(`the ralph-loop plugin is not installed for ${project}`)
    expect(run.stderr()).toContain(`ralph-loop install --project ${project}`)
    expect(run.lines().some((l) => l.startsWith("OpenCode started"))).toBe(false)
    expect(setup().requests("run-no-plugin")).toHaveLength(0)
  })

  it("a /ralph flag it does not know: a usage error (exit 2) before any server starts", async () => {
    const project = setup().project("run-usage")
    const run = startRun(setup(), project, ["a task", "--max-iteratons", "3"])
    expect(await run.exit()).toBe(EXIT.usage)
    expect(run.stderr()).toContain("unknown flag --max-iteratons (did you mean --max-iterations?)")
    expect(run.lines().some((l) => l.startsWith("OpenCode started"))).toBe(false)
  })

  it("paused for a person (the model reports it is blocked): exit 6, the pause's why in its event and the end", async () => {
    const project = setup().project("run-blocked", {
      script: {
        main: [
          {
            text: "---RALPH_STATUS---\nSTATUS: BLOCKED\nEXIT_SIGNAL: false\nRECOMMENDATION: need the API key for the staging server\n---END_RALPH_STATUS---",
          },
        ],
      },
    })
    const run = startRun(setup(), project, ["a blocked task", "--status-block"], { json: true })
    expect(await run.exit(), run.stderr()).toBe(EXIT.paused)
    const events = run.events()
    expect(events.find((e) => e.type === "paused")).toMatchObject({
      detail: expect.stringContaining("need the API key for the staging server"),
    })
    expect(events.at(-1)).toMatchObject({
      type: "ended",
      outcome: "paused",
      exitCode: 6,
      detail: expect.stringMatching(/need the API key.*ralph-loop run --resume ses_/),
    })
  })

  it("OpenCode not found: --opencode to a file that is not there, and no `opencode` on PATH, each exit 1 with what to do, no server started", async () => {
    const project = setup().project("run-no-opencode")
    const missing = startRun(setup(), project, ["a task"], { opencode: "/nonexistent/opencode" })
    expect(await missing.exit()).toBe(EXIT.runnerFailure)
    expect(missing.stderr()).toContain("ralph-loop run: --opencode /nonexistent/opencode: no such file")
    expect(missing.lines().at(-1)).toMatch(/^ended: runner-failure .*\(exit 1\)$/)

    // This package's node_modules/.bin (as `npx`/`npm run` put it first) has an `opencode` the run must look past.
    const path = [join(packageDir(), "node_modules", ".bin"), "/usr/bin", "/bin"].join(":")
    const notOnPath = startRun(setup(), project, ["a task"], { opencode: null, env: { PATH: path } })
    expect(await notOnPath.exit()).toBe(EXIT.runnerFailure)
    expect(notOnPath.stderr()).toContain(
      "OpenCode (the `opencode` command) is not on PATH: install it (https://opencode.ai), or give its path with --opencode PATH",
    )
    for (const run of [missing, notOnPath])
      expect(run.lines().some((l) => l.startsWith("OpenCode started"))).toBe(false)
    expect(setup().requests("run-no-opencode")).toHaveLength(0)
  })

  it("--parallel and --worktree: a usage error (exit 2) before any server starts, saying what to do instead", async () => {
    const project = setup().project("run-unsupported")
    const parallel = startRun(setup(), project, ["--prd", "plan.json", "--parallel", "2"])
    expect(await parallel.exit()).toBe(EXIT.usage)
    expect(parallel.stderr()).toContain("--parallel is not supported by `ralph-loop run`")
    expect(parallel.stderr()).toContain("`ralph-loop run --prd PATH --story ID` for each id")
    expect(parallel.stderr()).toContain('docs/headless.md, "A plan over many machines"')
    expect(parallel.stderr()).toContain("/ralph --prd --parallel N inside OpenCode")

    const worktree = startRun(setup(), project, ["a task", "--worktree", "feature-x"])
    expect(await worktree.exit()).toBe(EXIT.usage)
    expect(worktree.stderr()).toContain("--worktree is not supported by `ralph-loop run`")
    expect(worktree.stderr()).toContain("`ralph-loop run --project DIR …`")
    expect(worktree.stderr()).toContain("/ralph --worktree inside OpenCode")
    for (const run of [parallel, worktree])
      expect(run.lines().some((l) => l.startsWith("OpenCode started"))).toBe(false)
    expect(setup().requests("run-unsupported")).toHaveLength(0)
  })
})

describe("ralph-loop run --require-verified", () => {
  it("a completion that is not verified ends with exit 8 and says why; without the flag the same loop exits 0", async () => {
    const script = { main: [{ text: "All finished. <promise>DONE</promise>" }] }
    const strict = setup().project("run-require-verified", { script })
    const run = startRun(setup(), strict, ["--require-verified", "build the widget", "--max-iterations", "3"], {
      json: true,
    })
    expect(await run.exit(), run.stderr()).toBe(EXIT.notVerified)
    expect(run.events().at(-1)).toMatchObject({
      type: "ended",
      outcome: "not-verified",
      exitCode: 8,
      detail: expect.stringContaining("not verified: no check ran"),
      evidence: { verified: false },
    })
    const lenient = setup().project("run-not-required", { script })
    const plain = startRun(setup(), lenient, ["build the widget", "--max-iterations", "3"])
    expect(await plain.exit(), plain.stderr()).toBe(EXIT.completed)
  })
})
