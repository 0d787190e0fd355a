// `ralph-loop run` against the real `opencode serve` it starts itself: one exit code per class of
// ending, a line per decided iteration, and no server left behind.
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
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
    expect(lines.find((l) => l.startsWith("loop "))).toMatch(/^loop ses_\S+ started at iteration 1: build the widget — /)
    expect(lines.filter((l) => /^iteration \d+: /.test(l)).map((l) => /^iteration (\d+): (\w+)/.exec(l)?.slice(1).join(" "))).toEqual(["1 restart", "2 complete"])
    expect(lines.at(-1)).toMatch(/^ended: completed after 2 iterations · [\d,]+ tokens · \$[\d.]+ — the promise was kept · report \S+ralph_report\.md \(exit 0\)$/)
    expect(setup().requests("run-completed", "main")).toHaveLength(2)
    const pid = serverPid(lines)
    expect(pid).toBeGreaterThan(0)
    expect(alive(pid as number)).toBe(false)
  })

  it("a limit reached: --max-iterations 2 on a model that never finishes exits 3 with the reason", async () => {
    const project = setup().project("run-limit", { script: { main: (r) => ({ text: `still working, part ${r.index}` }) } })
    const run = startRun(setup(), project, ["never done", "--max-iterations", "2", "--strategy", "continue"])
    const code = await run.exit()
    expect(code, run.stderr()).toBe(EXIT.limit)
    expect(run.lines().at(-1)).toMatch(/^ended: max-iterations after 2 iterations .*\(exit 3\)$/)
    expect(alive(serverPid(run.lines()) as number)).toBe(false)
  })
})
