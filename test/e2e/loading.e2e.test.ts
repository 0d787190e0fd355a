// The plugin loads the ways a user loads it, registers its commands, and RALPH_LOOP_DISABLE=1
// turns it off entirely.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { packageDir, startHarness, type Harness } from "../harness/harness.js"
import { waitForLoopEnd, waitForToast } from "./helpers.js"

const harnesses: Harness[] = []
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.stop()))
})

async function harness(env: Record<string, string> = {}): Promise<Harness> {
  const started = await startHarness({ env })
  harnesses.push(started)
  return started
}

describe("loading", () => {
  it('as an npm-style "ralph-loop@file:<path>" spec with an options tuple, registering its commands', async () => {
    const h = await harness()
    const project = await h.project("file-spec", {
      withPlugin: false,
      opencodeConfig: { plugin: [[`ralph-loop@file:${packageDir()}`, { strategy: "continue" }]] },
      script: { main: [{ text: "working" }, { text: "<promise>DONE</promise>" }] },
    })
    const { data: commands } = await project.client.command.list()
    const ralph = commands?.find((c) => c.name === "ralph")
    expect(ralph?.description).toMatch(/Start a Ralph loop/)
    expect(commands?.some((c) => c.name === "cancel-ralph")).toBe(true)

    const session = await project.newSession()
    await project.command(session, "ralph", "via the file spec")
    await waitForToast(project, /^Ralph · done/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    expect(project.requests("main")).toHaveLength(2)
    expect(project.events.of("tui.session.select")).toHaveLength(0) // the tuple's "continue" applied
  })

  it.each([
    ["RALPH_LOOP_DISABLE=1", { RALPH_LOOP_DISABLE: "1" }, { pluginOptions: { activation: "always" } }],
    [
      "enabled: false in the project's settings file",
      {},
      { configFile: '{ // off for this project\n  "enabled": false, "activation": "always" }' },
    ],
  ] as const)("%s: no commands, no hooks, no prompts", async (_how, env, options) => {
    const h = await harness(env)
    const project = await h.project("disabled", { ...options, script: { main: [{ text: "working" }] } })
    const { data: commands } = await project.client.command.list()
    expect(commands?.some((c) => c.name === "ralph")).toBe(false)
    const session = await project.newSession()
    await project.client.session.prompt({ path: { id: session }, body: { parts: [{ type: "text", text: "hello" }] } })
    await project.waitForIdle()
    // Nothing of the plugin ran: no state folder, so no loop that could prompt.
    expect(existsSync(join(project.dir, ".opencode/ralph-loop"))).toBe(false)
    expect(project.requests("main")).toHaveLength(1)
    expect(project.requests("main")[0]?.lastUser).not.toContain("<promise>")
    expect(project.requests("main")[0]?.system).not.toContain("Ralph loop mode")
    expect(project.events.toasts()).toEqual([])
  })
})
