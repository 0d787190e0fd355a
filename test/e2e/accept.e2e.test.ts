// Accepting without a restart (issue 46) in the real OpenCode: the greeting task's changed
// expectation refuses the first claim; `ralph-loop accept`, run from another terminal while the
// model works, accepts it at no model turn, and the next claim completes verified, its evidence
// saying "accepted by you". A model that runs the accept itself, plainly or from a script, is
// refused both times, the refusals kept in the loop's state; its claim then completes not verified.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { ralphCli, sharedHarness } from "./helpers.js"
import { isControl, jsProject, prompts, runLoop, selected, write } from "./replay-project.js"

const harness = sharedHarness()

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
