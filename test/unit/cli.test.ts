// The CLI's pure parts: version ranges, removing plugin entries with every comment kept, which
// specs are ralph-loop, and `clean` (ended loops' files only, never an active loop's).
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { clean } from "../../src/cli/clean.js"
import { npmName, reachOf } from "../../src/listings/plugin-listings.js"
import { removePluginEntries } from "../../src/cli/remove-entries.js"
import { satisfies } from "../../src/cli/version-range.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const DAY = 24 * 60 * 60 * 1000

describe("version ranges (engines.opencode)", () => {
  it.each([
    ["1.18.33", ">=1.18.33 <2", true],
    ["1.18.40", ">=1.18.33 <2", true],
    ["1.18.32", ">=1.18.33 <2", false],
    ["2.0.0", ">=1.18.33 <2", false],
    ["1.18.33", "*", true],
    ["v1.19.0", ">1.18", true],
    ["1.18.33", "=1.18.33", true],
    ["1.18.34", "<=1.18.33", false],
  ])("%s in %s: %s", (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected)
  })

  it("cannot tell for what is not a version", () => {
    expect(satisfies("unknown", ">=1")).toBeUndefined()
    expect(satisfies("1.2.3", ">=banana")).toBeUndefined()
  })
})

describe("removing plugin entries", () => {
  const comments = (text: string) => text.match(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g) ?? []

  it("keeps every comment and the other entries, wherever the removed ones stand", () => {
    const text = `{
  // top
  "plugin": [
    // before everything
    "first", // after first
    /* inline */ "ralph-a", // after ralph-a
    ["ralph-b", { "x": 1 }] /* after the tuple */,
    "last" // after last
  ],
  "share": "disabled" // end
}`
    for (const indices of [[1], [2], [1, 2], [0, 3], [0, 1, 2, 3]]) {
      const out = removePluginEntries(text, indices)
      const expected = ["first", "ralph-a", ["ralph-b", { x: 1 }], "last"].filter((_, i) => !indices.includes(i))
      expect(parse(out)).toEqual({ plugin: expected, share: "disabled" })
      expect(comments(out)).toEqual(comments(text))
    }
  })

  it("a list left empty becomes []; a file on one line stays on one line", () => {
    expect(removePluginEntries('{\n  "plugin": [\n    "ralph"\n  ]\n}\n', [0])).toBe('{\n  "plugin": []\n}\n')
    expect(removePluginEntries('{"plugin":["a","ralph"]}', [1])).toBe('{"plugin":["a"]}')
  })
})

describe("which specs are ralph-loop", () => {
  it("npm names as OpenCode reads them", () => {
    expect(npmName("ralph-loop")).toBe("ralph-loop")
    expect(npmName("ralph-loop@file:/x")).toBe("ralph-loop")
    expect(npmName("@scope/pkg@1.2.3")).toBe("@scope/pkg")
    expect(npmName("/abs/path")).toBeUndefined()
    expect(npmName("./rel")).toBeUndefined()
    expect(npmName("file:///abs")).toBeUndefined()
  })

  it("what a spec reaches: this package, another copy, npm, nothing, or not ralph-loop at all", () => {
    const root = tempDir("ralph-reach-")
    const self = join(root, "self")
    const copy = join(root, "copy")
    const other = join(root, "other")
    for (const [dir, name, version] of [
      [self, "ralph-loop", "0.1.0"],
      [copy, "ralph-loop", "0.0.9"],
      [other, "something-else", "1.0.0"],
    ] as const) {
      mkdirSync(join(dir, "dist"), { recursive: true })
      writeFileSync(join(dir, "dist", "index.js"), "export default {}\n")
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version }))
    }
    expect(reachOf(`ralph-loop@file:${self}`, root, self)).toEqual({ kind: "this" })
    expect(reachOf("ralph-loop@file:./self", root, self)).toEqual({ kind: "this" })
    expect(reachOf(`file://${self}/dist/index.js`, root, self)).toEqual({ kind: "this" })
    expect(reachOf("./copy", root, self)).toEqual({ kind: "copy", dir: copy, version: "0.0.9" })
    expect(reachOf("ralph-loop", root, self)).toEqual({ kind: "npm" })
    expect(reachOf("ralph-loop@0.0.1-alpha.0", root, self)).toEqual({ kind: "npm" })
    expect(reachOf(`ralph-loop@file:${join(root, "gone")}`, root, self)).toEqual({
      kind: "missing",
      path: join(root, "gone"),
    })
    expect(reachOf(other, root, self)).toBeUndefined()
    expect(reachOf("some-plugin@1.0.0", root, self)).toBeUndefined()
  })
})

describe("ralph-loop clean", () => {
  it("removes the state and session folders of loops ended more than N days ago, never of active ones", async () => {
    const project = tempDir("ralph-clean-")
    const store = new LoopStore(project)
    const now = 100 * DAY
    const oldEnded = loop({ id: "ses_old", sessionID: "ses_old2", lineage: ["ses_old"], phase: "stopped" })
    const newEnded = loop({ id: "ses_new", sessionID: "ses_new", phase: "stopped" })
    const oldActive = loop({ id: "ses_active", sessionID: "ses_active", phase: "paused" })
    await store.save(oldEnded, "stopped", now - 40 * DAY)
    await store.save(newEnded, "stopped", now - 2 * DAY)
    await store.save(oldActive, "paused", now - 90 * DAY)
    const sessions = join(project, ".opencode", "sessions")
    for (const id of ["ses_old", "ses_old2", "ses_new", "ses_active"]) {
      mkdirSync(join(sessions, id), { recursive: true })
      writeFileSync(join(sessions, id, "ralph_summary.md"), "summary")
    }
    const lines: string[] = []
    expect(
      await clean(
        {
          command: "clean",
          operands: [],
          global: false,
          project,
          days: 30,
          help: false,
          loop: undefined,
          json: false,
          watch: false,
          force: false,
        },
        { XDG_CONFIG_HOME: join(project, "no-global") },
        (l) => lines.push(l),
        now,
      ),
    ).toBe(0)
    expect(readdirSync(join(store.dir, "loops")).sort()).toEqual(["ses_active.json", "ses_new.json"])
    expect(readdirSync(sessions).sort()).toEqual(["ses_active", "ses_new"])
    expect(lines[0]).toMatch(/removed the files of 1 loop that ended more than 30 days ago/)
    expect(existsSync(join(store.dir, "journal.jsonl"))).toBe(true)
  })
})
