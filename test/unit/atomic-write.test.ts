// Atomic writes keep the replaced file's permission bits, and a user's file reached through a
// symlink is edited where the link leads (the link stays a link).
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { editFileAtomic, writeFileAtomic } from "../../src/files/atomic.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const modeOf = (file: string) => statSync(file).mode & 0o7777

describe("atomic writes", () => {
  it("keep the mode of the file they replace (0600 stays 0600, 0664 stays 0664)", async () => {
    const dir = tempDir("ralph-atomic-")
    for (const mode of [0o600, 0o664, 0o640]) {
      const file = join(dir, `file-${mode.toString(8)}`)
      writeFileSync(file, "old")
      chmodSync(file, mode)
      await writeFileAtomic(file, "new", dir)
      expect(readFileSync(file, "utf8")).toBe("new")
      expect(modeOf(file).toString(8)).toBe(mode.toString(8))
    }
  })

  it("editFileAtomic writes through a symlink to its target: the link stays, the target's 0600 stays", async () => {
    const dir = tempDir("ralph-atomic-")
    mkdirSync(join(dir, "dotfiles"))
    const target = join(dir, "dotfiles", "opencode.json")
    writeFileSync(target, '{ "plugin": ["a"] }\n')
    chmodSync(target, 0o600)
    const link = join(dir, "opencode.json")
    symlinkSync(target, link)
    // A link to a link: the edit lands at the end of the chain.
    const second = join(dir, "config.json")
    symlinkSync(link, second)

    await editFileAtomic(second, '{ "plugin": [] }\n')
    expect(lstatSync(second).isSymbolicLink()).toBe(true)
    expect(readlinkSync(second)).toBe(link)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readFileSync(target, "utf8")).toBe('{ "plugin": [] }\n')
    expect(modeOf(target).toString(8)).toBe("600")
  })

  it("editFileAtomic of a plain file replaces it in place", async () => {
    const dir = tempDir("ralph-atomic-")
    const file = join(dir, "opencode.jsonc")
    writeFileSync(file, "{}")
    chmodSync(file, 0o600)
    await editFileAtomic(file, '{ "share": "disabled" }')
    expect(readFileSync(file, "utf8")).toBe('{ "share": "disabled" }')
    expect(modeOf(file).toString(8)).toBe("600")
  })
})
