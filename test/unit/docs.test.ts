// The docs a user reads are what the code says: docs/configuration.md is what the settings schema
// gives (`npm run docs` rewrites it), and the README is a front door whose links all lead somewhere.
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { configurationReference } from "../../src/config/reference.js"
import { SETTING_KEYS } from "../../src/config/schema.js"
import { packageDir } from "../harness/harness.js"

const read = (path: string) => readFileSync(join(packageDir(), path), "utf8")

describe("docs/configuration.md", () => {
  it("is what the settings schema gives (run `npm run docs` after changing a setting)", () => {
    expect(read("docs/configuration.md")).toBe(configurationReference())
  })

  it("has a row for every setting, with its description", () => {
    const doc = configurationReference()
    for (const key of SETTING_KEYS) expect(doc).toMatch(new RegExp(`^\\| \`${key}\` \\| .+ \\| .+ \\| .{10,} \\|$`, "m"))
  })
})
