// `enabled: false` switches the plugin off at boot: read from every settings layer, the last that sets it winning.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { enabledBySettings } from "../../src/config/enabled.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

function layout(files: Record<string, string>): { directory: string; globalDir: string } {
  const root = tempDir("ralph-enabled-")
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return { directory: join(root, "project"), globalDir: join(root, "global") }
}

describe("enabledBySettings", () => {
  it("is on with no settings at all", () => {
    const { directory, globalDir } = layout({})
    expect(enabledBySettings(directory, globalDir, undefined)).toBe(true)
  })

  it("the last layer that sets it wins: global block, global file, project block, project file, plugin options", () => {
    const off = layout({ "project/.opencode/ralph-loop.jsonc": '{ "enabled": false } // off here' })
    expect(enabledBySettings(off.directory, off.globalDir, undefined)).toBe(false)
    expect(enabledBySettings(off.directory, off.globalDir, { enabled: true })).toBe(true)
    const globalOff = layout({
      "global/ralph-loop.json": '{ "enabled": false }',
      "project/opencode.json": '{ "ralph-loop": { "enabled": true } }',
    })
    expect(enabledBySettings(globalOff.directory, globalOff.globalDir, {})).toBe(true)
    const blockOff = layout({ "project/opencode.jsonc": '{ "ralph-loop": { "enabled": false } }' })
    expect(enabledBySettings(blockOff.directory, blockOff.globalDir, {})).toBe(false)
  })

  it("a file that does not parse, or a value that is not true or false, says nothing", () => {
    const broken = layout({
      "project/.opencode/ralph-loop.jsonc": '{ "enabled": false "x": 1 }',
      "global/ralph-loop.jsonc": '{ "enabled": "no" }',
    })
    expect(enabledBySettings(broken.directory, broken.globalDir, undefined)).toBe(true)
  })
})
