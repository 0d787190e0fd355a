// The OpenCode config a worktree loop's instance gets: the project's, with OpenCode's snapshots off
// (src/worktrees/opencode-overrides.ts) — written only into a file of the plugin's own.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { prepareWorktreeConfig } from "../../src/worktrees/worktree-config.js"
import { withWorktreeOverrides } from "../../src/worktrees/opencode-overrides.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const json = (text: string | undefined) => parse(text ?? "") as Record<string, unknown>

const USER_JSONC = `{
  // the user's model
  "model": "mock/mock-model",
  "snapshot": true,
  "ralph-loop": { "maxIterations": 7 }, // their loop settings
  "permission": { "bash": "ask" }
}
`

describe("withWorktreeOverrides", () => {
  it("without a copy: a file of its own that turns OpenCode's snapshots off", () => {
    expect(json(withWorktreeOverrides(undefined))).toEqual({ snapshot: false })
  })

  it("in the copy of the user's config: snapshot set to false, every other byte kept", () => {
    const text = withWorktreeOverrides(USER_JSONC) as string
    expect(text).toBe(USER_JSONC.replace('"snapshot": true', '"snapshot": false'))
    const minified = withWorktreeOverrides('{"model":"mock/mock-model"}') as string
    expect(json(minified)).toEqual({ model: "mock/mock-model", snapshot: false })
  })

  it("leaves a copy that is no JSON object as OpenCode will read it", () => {
    expect(withWorktreeOverrides('{ "model": ')).toBeUndefined()
    expect(withWorktreeOverrides("[1]")).toBeUndefined()
  })
})

describe("prepareWorktreeConfig", () => {
  const dirs = () => {
    const main = tmp("wt-config-main-")
    const worktree = join(main, ".opencode/ralph-loop/worktrees/w")
    mkdirSync(worktree, { recursive: true })
    return { main, worktree }
  }

  it("a worktree whose committed config is at its root: .opencode/opencode.jsonc turns snapshots off, the root file is untouched", async () => {
    const { main, worktree } = dirs()
    writeFileSync(join(main, "opencode.json"), '{"model":"mock/mock-model","snapshot":true}')
    writeFileSync(join(worktree, "opencode.json"), '{"model":"mock/mock-model","snapshot":true}')
    await prepareWorktreeConfig(main, worktree)
    expect(json(readFileSync(join(worktree, ".opencode/opencode.jsonc"), "utf8"))).toEqual({ snapshot: false })
    expect(readFileSync(join(worktree, "opencode.json"), "utf8")).toBe('{"model":"mock/mock-model","snapshot":true}')
  })

  it("the project's uncommitted .opencode/opencode.jsonc is copied with snapshots off, its model, permissions and ralph-loop block kept", async () => {
    const { main, worktree } = dirs()
    mkdirSync(join(main, ".opencode"), { recursive: true })
    writeFileSync(join(main, ".opencode/opencode.jsonc"), USER_JSONC)
    await prepareWorktreeConfig(main, worktree)
    const copied = readFileSync(join(worktree, ".opencode/opencode.jsonc"), "utf8")
    expect(json(copied)).toEqual({
      model: "mock/mock-model",
      snapshot: false,
      "ralph-loop": { maxIterations: 7 },
      permission: { bash: "ask" },
    })
    expect(copied).toContain("// the user's model")
    // The project's own file is not changed.
    expect(readFileSync(join(main, ".opencode/opencode.jsonc"), "utf8")).toBe(USER_JSONC)
  })

  it("no config anywhere: the worktree's instance still runs without snapshots", async () => {
    const { main, worktree } = dirs()
    await prepareWorktreeConfig(main, worktree)
    expect(json(readFileSync(join(worktree, ".opencode/opencode.jsonc"), "utf8"))).toEqual({ snapshot: false })
  })

  it("a worktree with a committed .opencode/ config of its own is left as it is (no second file that would hide its ralph-loop block)", async () => {
    const { main, worktree } = dirs()
    mkdirSync(join(worktree, ".opencode"), { recursive: true })
    writeFileSync(join(worktree, ".opencode/opencode.json"), '{"snapshot":true,"ralph-loop":{"maxIterations":7}}')
    await prepareWorktreeConfig(main, worktree)
    expect(readFileSync(join(worktree, ".opencode/opencode.json"), "utf8")).toBe(
      '{"snapshot":true,"ralph-loop":{"maxIterations":7}}',
    )
    expect(existsSync(join(worktree, ".opencode/opencode.jsonc"))).toBe(false)
  })
})
