// A broken .opencode/ralph-loop.jsonc never breaks OpenCode: one clear message, safe values.
import { spawnSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import { distinctReply, selectedSessions, sharedHarness, waitForLoopEnd, waitForToast } from "./helpers.js"

const harness = sharedHarness()

const configToasts = (project: Project) => project.events.toasts().filter((t) => t.title === "Ralph · config problem")

async function stillServing(project: Project): Promise<void> {
  const { data, error } = await project.client.config.get()
  expect(error).toBeUndefined()
  expect(data).toBeTruthy()
}

describe("a broken config file", () => {
  it("with a syntax error: OpenCode keeps serving, one message names the file and where, the loop runs on defaults", async () => {
    const project = await harness().project("syntax", {
      configFile: '{\n  "strategy": "continue",\n  "maxRetries": 2 }}\n',
      script: { main: [{ text: "working" }, { text: "<promise>DONE</promise>" }] },
    })
    await stillServing(project)
    const first = await project.newSession()
    await project.command(first, "ralph", "task one")
    await waitForToast(project, /^Ralph · done/)
    const second = await project.newSession()
    await project.command(second, "ralph", "task two")
    // The script's last reply repeats: task two keeps its promise at once.
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 2)

    const toasts = configToasts(project)
    expect(toasts).toHaveLength(1)
    expect(toasts[0]?.message).toContain(".opencode/ralph-loop.jsonc")
    expect(toasts[0]?.message).toMatch(/not valid JSONC .* line 3, column \d+/)
    // Defaults: recreate, so task one's restart went to a fresh session the TUI was pointed at.
    expect(selectedSessions(project)).toHaveLength(1)
    expect(project.requests("main")).toHaveLength(3)
    await stillServing(project)
  })

  it("seed 000's block in an OpenCode config file with a syntax error: OpenCode refuses the folder (ConfigJsonError), so no plugin runs there; ralph-loop doctor says the block is skipped", async () => {
    const dir = join(harness().root, "block-syntax")
    mkdirSync(join(dir, ".opencode"), { recursive: true })
    writeFileSync(join(dir, "opencode.json"), "{}")
    writeFileSync(
      join(dir, ".opencode/opencode.jsonc"),
      '{\n  "ralph-loop": { "promiseWord": "FIN" }\n  "share": "disabled"\n}\n',
    )
    const response = await fetch(`${harness().server.url}/session?directory=${encodeURIComponent(dir)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      name: "ConfigJsonError",
      data: { path: join(dir, ".opencode/opencode.jsonc") },
    })
    const doctor = spawnSync(process.execPath, [join(packageDir(), "dist/cli/main.js"), "doctor", "--project", dir], {
      encoding: "utf8",
      env: { ...process.env, PATH: "", HOME: dir, XDG_CONFIG_HOME: join(dir, "xdg") },
    })
    expect(doctor.stdout).toContain(
      'FAIL  settings: .opencode/opencode.jsonc has a syntax error (CommaExpected at line 3, column 3); its "ralph-loop" block is skipped',
    )
    expect(doctor.status).toBe(1)
  })

  it("with a wrong type: one message names the file and the key; the other keys of the file still apply", async () => {
    const project = await harness().project("wrong-type", {
      configFile:
        '{\n  // comments and trailing commas are fine\n  "strategy": "continue",\n  "maxRetries": "three",\n}\n',
      // Replies that change nothing are no progress: the breaker must not end this loop first.
      pluginOptions: { noProgressThreshold: 100 },
      script: { main: (r) => distinctReply(r.index) },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "never done")
    const warning = await waitForToast(project, /retry limit/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })

    const toasts = configToasts(project)
    expect(toasts).toHaveLength(1)
    expect(toasts[0]?.message).toContain('.opencode/ralph-loop.jsonc: "maxRetries"')
    expect(toasts[0]?.message).toMatch(/expected number/i)
    // maxRetries fell back to the default 5; strategy "continue" from the same file applied.
    expect(warning.properties.message).toMatch(/maxRetries 5/)
    expect(project.requests("main")).toHaveLength(6)
    expect(selectedSessions(project)).toHaveLength(0)
  })

  it("plugin options override the file; unknown keys are named", async () => {
    const project = await harness().project("layers", {
      configFileName: "ralph-loop.json",
      configFile: '{ "strategy": "fresh", "maxRetires": 1 }',
      pluginOptions: { strategy: "continue", maxRetries: 1 },
      script: { main: [{ text: "working" }] },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "layered")
    await waitForToast(project, /retry limit/)
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "retries-exhausted" })
    expect(project.requests("main")).toHaveLength(2)
    expect(selectedSessions(project)).toHaveLength(0)
    const message = configToasts(project)[0]?.message ?? ""
    expect(message).toContain('.opencode/ralph-loop.json: "maxRetires" unknown key')
    expect(message).toContain('did you mean "maxRetries"')
  })
})
