// Permissions never hang `ralph-loop run`: a bash call the project's opencode.json makes OpenCode
// ask about is rejected without --auto-approve (the model reads the denial, the loop goes on and
// ends) and approved with it.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { REJECTED_MESSAGE } from "../../src/cli/run/permissions.js"
import { messageText, type MockRequest, type Reply } from "../harness/mock-model.js"
import { runSetup, startRun } from "./run-helpers.js"

const setup = runSetup()

/** The model runs one bash command, then (with the tool's result) keeps its promise. */
const script = {
  main: (r: MockRequest): Reply =>
    r.lastRole === "tool"
      ? { text: "That is all. <promise>DONE</promise>" }
      : { toolCalls: [{ name: "bash", args: { command: "echo hi > perm.txt", description: "write perm.txt" } }] },
}

/** What the model was told of its bash call: the tool message of its follow-up request. */
const toolResult = (name: string) => {
  const followUp = setup()
    .requests(name, "main")
    .find((r) => r.lastRole === "tool")
  return messageText(followUp?.body.messages?.at(-1))
}

describe("ralph-loop run: permission requests", () => {
  it("without --auto-approve: rejected at once, said in a line, the model sees the denial, the loop completes", async () => {
    const project = setup().project("run-perm-reject", { script, opencodeConfig: { permission: { bash: "ask" } } })
    const run = startRun(setup(), project, ["write perm.txt"])
    expect(await run.exit(), run.stderr()).toBe(EXIT.completed)
    expect(run.lines()).toContainEqual(
      expect.stringMatching(
        /^permission bash \(echo hi > perm\.txt\) asked in ses_\S+: rejected \(--auto-approve would approve it\)$/,
      ),
    )
    expect(toolResult("run-perm-reject")).toContain(REJECTED_MESSAGE)
    expect(existsSync(join(project, "perm.txt"))).toBe(false)
  })

  it("with --auto-approve: approved once, the command runs", async () => {
    const project = setup().project("run-perm-approve", { script, opencodeConfig: { permission: { bash: "ask" } } })
    const run = startRun(setup(), project, ["write perm.txt", "--auto-approve"], { json: true })
    expect(await run.exit(), run.stderr()).toBe(EXIT.completed)
    expect(run.events().filter((e) => e.type === "permission")).toEqual([
      expect.objectContaining({ permission: "bash", patterns: ["echo hi > perm.txt"], reply: "once" }),
    ])
    expect(existsSync(join(project, "perm.txt"))).toBe(true)
  })
})
