// `ralph-loop hint` in the real OpenCode, run as a process of its own: a hint that starts with `--`
// is given after `--` and reaches the loop's next prompt whole; one over the limit is refused by the
// command with one line (the limit and its length), before anything is sent.
import { describe, expect, it } from "vitest"
import { gate, type MockRequest } from "../harness/mock-model.js"
import { ralphCli, sharedHarness, waitForLoopEnd, waitForStreamedText } from "./helpers.js"

const harness = sharedHarness()

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const HINT = "--verbose is broken: read HINT-TOKEN first"

/** `ralph-loop --project DIR <args>`: its exit status and output. */
const cli = (project: string, ...args: string[]) => ralphCli(project, args)

describe("ralph-loop hint", () => {
  it("a hint after -- that starts with -- reaches the next prompt whole; one over 4,000 characters is refused in one line", async () => {
    const turnOne = gate()
    const project = await harness().project("cli-hint", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r) =>
          isControl(r)
            ? { text: "OK" }
            : r.lastUser.includes("HINT-TOKEN")
              ? { text: "<promise>DONE</promise>" }
              : { text: "working on part one", holdAfterFirstChunk: turnOne.opened },
      },
    })
    const session = await project.newSession()
    void project.command(session, "ralph", "build the parser").catch(() => undefined)
    await waitForStreamedText(project, /^working/)
    expect((await cli(project.dir, "pause")).code).toBe(0)
    turnOne.open()
    await waitForLoopEnd(project, { phase: "paused" })

    const tooLong = await cli(project.dir, "hint", "x".repeat(4_001))
    expect(tooLong).toEqual({
      code: 2,
      stdout: "",
      stderr: "ralph-loop: the hint is 4,001 characters long; a hint can be at most 4,000\n",
    })

    const hinted = await cli(project.dir, "hint", "--", HINT)
    expect(hinted).toMatchObject({ code: 0, stderr: "" })
    expect(hinted.stdout).toContain(`Ralph · hint queued — ${session}`)
    expect(await cli(project.dir, "resume")).toMatchObject({ code: 0, stderr: "" })
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })

    const main = project.requests("main").filter((r) => !isControl(r))
    expect(main).toHaveLength(2)
    expect(main[1]?.lastUser).toContain("## Hint from the user")
    expect(main[1]?.lastUser).toContain(HINT)
    // The refused hint never reached the plugin: no prompt carries it.
    expect(main.some((r) => r.lastUser.includes("x".repeat(100)))).toBe(false)
  })
})
