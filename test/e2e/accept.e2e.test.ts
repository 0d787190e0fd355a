// Accepting without a restart (issue 46) in the real OpenCode: the greeting task's changed
// expectation refuses the first claim; `ralph-loop accept`, run from another terminal while the
// model works, accepts it at no model turn, and the next claim completes verified, its evidence
// saying "accepted by you". A model that runs the accept itself, plainly or from a script, is
// refused both times, the refusals kept in the loop's state; its claim then completes not verified.
// The TUI's /ralph-accept does the same as the command, after a confirm that lists the keys.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { startTui, type Tui } from "../harness/tui.js"
import { waitUntil } from "../harness/wait.js"
import { ralphCli, sharedHarness } from "./helpers.js"
import { isControl, jsProject, prompts, runLoop, selected, write } from "./replay-project.js"

const harness = sharedHarness()
const tuis: Tui[] = []
afterEach(async () => {
  for (const tui of tuis.splice(0)) await tui.stop()
})

const GREET = 'export const greet = () => "Hello"\n'
const GREET_TEST =
  'import { expect, test } from "vitest"\nimport { greet } from "../src/greet.js"\n\n' +
  'test("greets", () => {\n  expect(greet()).toBe("Hello")\n})\n'
const UNIT = { name: "unit", kind: "test", command: "npm test" }
const CHANGE = [
  write("src/greet.js", GREET.replace("Hello", "Hi")),
  write("test/greet.test.js", GREET_TEST.replace('"Hello"', '"Hi"')),
]
const CLAIM = "It is done as asked. <promise>DONE</promise>"

/** The first prompt changes the greeting and its test; the second gets `second`; a tool's result gets the claim. */
function greeting(project: () => Project, second: (r: MockRequest) => Reply) {
  return (r: MockRequest): Reply => {
    if (isControl(r)) return { text: "OK" }
    if (r.lastRole === "tool") return prompts(project()).length === 1 ? { text: CLAIM } : { text: `Claimed. ${CLAIM}` }
    return prompts(project()).length === 1 ? { toolCalls: CHANGE } : second(r)
  }
}

async function greetingProject(name: string, second: (project: () => Project) => (r: MockRequest) => Reply) {
  let project!: Project
  project = await harness().project(name, {
    pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 4 },
    script: {
      main: greeting(
        () => project,
        second(() => project),
      ),
    },
  })
  jsProject(project, { test: "vitest run" }, { "src/greet.js": GREET, "test/greet.test.js": GREET_TEST })
  return project
}

describe("ralph-loop accept", () => {
  it("accepts the changed expectation that refused the claim, from another terminal; the next claim completes verified, accepted by you", async () => {
    let accepting: Promise<{ code: number; stdout: string; stderr: string }> | undefined
    const project = await greetingProject("accept-cli", (project) => () => {
      // The refusal's prompt is being answered: the user accepts meanwhile, and the model claims again once it has.
      accepting ??= ralphCli(project().dir, ["accept"])
      return { text: CLAIM, holdAfterFirstChunk: accepting }
    })
    const [, second] = await runLoop(project, "change the greeting to Hi", 2)
    expect(second).toContain("you changed what they expect")
    const answer = await (accepting as NonNullable<typeof accepting>)
    expect(answer, answer.stderr).toMatchObject({ code: 0 })
    expect(answer.stdout).toContain('test/greet.test.js::greets::expect(greet()).toBe("Hi")')
    const { evidence, guard } = await selected(project)
    expect(evidence.verified).toBe(true)
    expect(evidence.acceptedByYou).toEqual([
      expect.objectContaining({
        key: 'test/greet.test.js::greets::expect(greet()).toBe("Hi")',
        via: "ralph-loop accept",
      }),
    ])
    expect(guard?.acceptable).toEqual([])
  })

  it("refuses an accept the model runs, plainly or from a script its shell runs, and keeps both refusals", async () => {
    const cli = join(packageDir(), "dist", "cli", "main.js")
    const project = await greetingProject("accept-model", () => () => ({
      toolCalls: [
        { name: "bash", args: { command: "npx ralph-loop accept", description: "accept" } },
        { name: "bash", args: { command: "sh ./scripts/go.sh", description: "go" } },
      ],
    }))
    mkdirSync(join(project.dir, "scripts"))
    writeFileSync(join(project.dir, "scripts", "go.sh"), `node ${JSON.stringify(cli)} accept\n`)
    const [, second] = await runLoop(project, "change the greeting to Hi", 2)
    expect(second).toContain("you changed what they expect")
    const tools = project.requests("main").filter((r) => r.lastRole === "tool")
    const results = JSON.stringify(tools.at(-1)?.body.messages?.slice(-2))
    expect(results).toContain("ralph-loop accept is the user's command, not yours")
    expect(results).toContain("Refused: a model's shell ran it")
    const { evidence, guard } = await selected(project)
    // The same change claimed again: done, not verified, and nothing accepted.
    expect(evidence.verified).toBe(false)
    expect(evidence.acceptedByYou).toBeUndefined()
    expect(guard?.refusedAccepts.map((r) => r.why)).toEqual([
      "ralph-loop accept is the user's command, not yours",
      expect.stringMatching(/^a model's shell ran it \(session ses_/),
    ])
  })
})

describe("/ralph-accept in the TUI", () => {
  it("lists what refused the claim in a confirm, accepts it at no model turn, and the next claim completes verified", async () => {
    const held = gate()
    const project = { current: undefined as Tui | undefined }
    const requests = () => (project.current as Tui).requests("main")
    const userPrompts = () =>
      requests().filter((r) => r.lastRole === "user" && !r.lastUser.includes("[ralph-loop control]"))
    const tui = await startTui("accept-tui", {
      pluginOptions: { strategy: "continue", checks: [UNIT], maxRetries: 4 },
      script: {
        main: (r: MockRequest): Reply => {
          if (r.lastUser.includes("[ralph-loop control]")) return { text: "OK" }
          if (r.lastRole === "tool") return { text: CLAIM }
          return userPrompts().length === 1 ? { toolCalls: CHANGE } : { text: CLAIM, holdAfterFirstChunk: held.opened }
        },
      },
    })
    tuis.push(tui)
    project.current = tui
    jsProject(tui, { test: "vitest run" }, { "src/greet.js": GREET, "test/greet.test.js": GREET_TEST })
    await tui.waitForScreen("Ask anything", 90_000)
    tui.type("/ralph change the greeting to Hi")
    tui.press("Enter")
    // The refusal's prompt is being answered (held): the claim it refused is on disk.
    await tui.mock.waitFor(() => userPrompts().length >= 2, 90_000, "the prompt after the refusal")
    await waitUntil(() => (tui.loops()[0]?.guard?.replay?.status ?? "") === "ran", "the refused claim's replay on disk")
    const before = requests().length
    tui.type("/ralph-accept")
    await tui.waitForScreen("/ralph-accept")
    tui.press("Enter")
    await tui.waitForScreen("Accept what refused the last claim?")
    await tui.waitForScreen('test/greet.test.js::greets::expect(greet()).toBe("Hi")')
    tui.press("Enter")
    await waitUntil(() => (tui.loops()[0]?.accepted ?? []).length === 1, "the accept in the loop's state")
    expect(requests().length).toBe(before)
    held.open()
    await waitUntil(() => tui.loops()[0]?.phase === "stopped", "the loop's end", 90_000)
    const [loop] = tui.loops()
    expect(loop).toMatchObject({ stopReason: "completed", iteration: 2 })
    expect(loop?.evidence).toMatchObject({ verified: true, acceptedByYou: [{ via: "the TUI" }] })
  })
})
