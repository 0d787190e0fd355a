// `ralph-loop uninstall` and `doctor` on the config files users really have: symlinked into a
// dotfiles folder with mode 0600, a folder where the file should be, plugin specs that are no path,
// a "plugin" key given twice.
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { parseArgs, type CliArgs } from "../../src/cli/args.js"
import { doctor } from "../../src/cli/doctor.js"
import { packageInfo } from "../../src/listings/package-info.js"
import { uninstall } from "../../src/cli/uninstall.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const SPEC = packageInfo().spec

interface Setup {
  root: string
  project: string
  env: NodeJS.ProcessEnv
  args: (command: string) => CliArgs
}

/** A project (its own git root) and an empty global config folder; no `opencode` on PATH. */
function setup(): Setup {
  const root = tempDir("ralph-cli-config-")
  const project = join(root, "project")
  mkdirSync(join(project, ".git"), { recursive: true })
  const env = { XDG_CONFIG_HOME: join(root, "config"), PATH: "" }
  const args = (command: string) => parseArgs([command, "--project", project], project) as CliArgs
  return { root, project, env, args }
}

async function run(
  command: (out: (line: string) => void) => number | Promise<number>,
): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = []
  const code = await command((line) => lines.push(line))
  return { code, lines }
}

describe("uninstall edits a config file where it really is", () => {
  it("a symlinked 0600 opencode.json: its target is edited and stays 0600, the link stays a link", async () => {
    const s = setup()
    mkdirSync(join(s.root, "dotfiles"))
    const target = join(s.root, "dotfiles", "opencode.json")
    writeFileSync(
      target,
      `{ "plugin": ["keep-me", "${SPEC}"], "provider": { "x": { "options": { "apiKey": "secret" } } } }\n`,
    )
    chmodSync(target, 0o600)
    const link = join(s.project, "opencode.json")
    symlinkSync(target, link)

    const { code, lines } = await run((out) => uninstall(s.args("uninstall"), s.env, out))
    expect(code, lines.join("\n")).toBe(0)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect((parse(readFileSync(target, "utf8")) as { plugin: string[] }).plugin).toEqual(["keep-me"])
    expect((statSync(target).mode & 0o777).toString(8)).toBe("600")
  })
})

describe("config files the CLI cannot follow", () => {
  it("an opencode.json that is a folder: uninstall names it in one line and exits 1, still cleaning the other files; doctor reports it and goes on", async () => {
    const s = setup()
    mkdirSync(join(s.project, "opencode.json"))
    mkdirSync(join(s.project, ".opencode"))
    writeFileSync(join(s.project, ".opencode", "opencode.json"), `{ "plugin": ["${SPEC}"] }\n`)

    const checked = await run((out) => doctor(s.args("doctor"), s.env, out))
    expect(checked.code).toBe(1)
    expect(checked.lines).toContain(
      `FAIL  ${join(s.project, "opencode.json")}: a folder, not a file (OpenCode cannot read it)`,
    )
    expect(checked.lines.some((l) => l.includes("— reaches this package"))).toBe(true)
    expect(checked.lines.some((l) => l.startsWith("ok    settings valid"))).toBe(true)

    const removed = await run((out) => uninstall(s.args("uninstall"), s.env, out))
    expect(removed.code).toBe(1)
    expect(removed.lines).toContain(
      `ralph-loop uninstall: ${join(s.project, "opencode.json")} is a folder, not a file; left as it is`,
    )
    expect(parse(readFileSync(join(s.project, ".opencode", "opencode.json"), "utf8"))).toEqual({ plugin: [] })
  })

  it('a "file://host/x" plugin entry: doctor warns that it cannot tell where it leads and goes on; uninstall leaves it and removes ours', async () => {
    const s = setup()
    writeFileSync(join(s.project, "opencode.json"), `{ "plugin": ["file://host/x", "${SPEC}"] }\n`)

    const checked = await run((out) => doctor(s.args("doctor"), s.env, out))
    const warning = checked.lines.find((l) => l.includes('"file://host/x"'))
    expect(warning).toMatch(
      /^warn {2}plugin entry "file:\/\/host\/x" in .*opencode\.json: cannot tell where it leads \(.+\)$/,
    )
    expect(checked.lines.some((l) => l.includes(`"${SPEC}" — reaches this package`))).toBe(true)

    const removed = await run((out) => uninstall(s.args("uninstall"), s.env, out))
    expect(removed.code, removed.lines.join("\n")).toBe(0)
    expect(removed.lines.some((l) => l.startsWith('ralph-loop uninstall: left "file://host/x" in '))).toBe(true)
    expect(parse(readFileSync(join(s.project, "opencode.json"), "utf8"))).toEqual({ plugin: ["file://host/x"] })
  })
})

describe('a "plugin" key given twice', () => {
  it("uninstall edits the last (the one OpenCode reads) and leaves the text before it as it was; doctor warns", async () => {
    const s = setup()
    const before = `{\n  // ignored by OpenCode\n  "plugin": ["first-only", "${SPEC}"],\n  "share": "disabled",\n`
    const text = `${before}  "plugin": [\n    "keep-me",\n    "${SPEC}"\n  ]\n}\n`
    const file = join(s.project, "opencode.jsonc")
    writeFileSync(file, text)

    const checked = await run((out) => doctor(s.args("doctor"), s.env, out))
    expect(checked.lines).toContain(`warn  ${file}: "plugin" is set 2 times; OpenCode reads only the last`)
    expect(checked.lines.filter((l) => l.includes("— reaches this package"))).toHaveLength(1)

    const removed = await run((out) => uninstall(s.args("uninstall"), s.env, out))
    expect(removed.code, removed.lines.join("\n")).toBe(0)
    const after = readFileSync(file, "utf8")
    expect(after).toBe(`${before}  "plugin": [\n    "keep-me"\n  ]\n}\n`)
    expect((parse(after) as { plugin: string[] }).plugin).toEqual(["keep-me"])
  })

  it("ours only under the first key: OpenCode does not load it, so uninstall finds nothing to remove", async () => {
    const s = setup()
    const text = `{ "plugin": ["${SPEC}"], "plugin": ["other"] }\n`
    writeFileSync(join(s.project, "opencode.json"), text)
    const removed = await run((out) => uninstall(s.args("uninstall"), s.env, out))
    expect(removed.lines).toEqual(["ralph-loop uninstall: ralph-loop is not listed in any project config file"])
    expect(readFileSync(join(s.project, "opencode.json"), "utf8")).toBe(text)
  })
})

describe("the TUI half's config files (tui.json[c])", () => {
  it("doctor says which half is listed when only one is; uninstall removes both, the symlinked 0600 tui.jsonc edited in place with its comments", async () => {
    const s = setup()
    writeFileSync(join(s.project, "opencode.json"), `{ "plugin": ["${SPEC}"] }\n`)
    const onlyServer = await run((out) => doctor(s.args("doctor"), s.env, out))
    expect(onlyServer.lines).toContain(
      "warn  the TUI half is not listed in any tui.json: loops work, but the commands cost a model turn and there is no sidebar panel (`ralph-loop install` lists both halves)",
    )

    mkdirSync(join(s.root, "dotfiles"))
    const target = join(s.root, "dotfiles", "tui.jsonc")
    const tuiText = `{\n  // my TUI\n  "theme": "dark",\n  "plugin": [\n    "other-tui", // stays\n    "${SPEC}"\n  ]\n}\n`
    writeFileSync(target, tuiText)
    chmodSync(target, 0o600)
    mkdirSync(join(s.project, ".opencode"))
    const link = join(s.project, ".opencode", "tui.jsonc")
    symlinkSync(target, link)
    const both = await run((out) => doctor(s.args("doctor"), s.env, out))
    expect(both.lines).toContain(`ok    listed (project, TUI half) in ${link}: "${SPEC}" — reaches this package`)
    expect(both.lines.some((l) => l.includes("TUI half is not listed"))).toBe(false)

    writeFileSync(join(s.project, "opencode.json"), `{ "plugin": [] }\n`)
    const onlyTui = await run((out) => doctor(s.args("doctor"), s.env, out))
    expect(onlyTui.code).toBe(1)
    expect(onlyTui.lines).toContain(
      "FAIL  ralph-loop is not listed in any OpenCode config file (only its TUI half, in tui.json: the loop itself is the server half): run `ralph-loop install` (or `--global`)",
    )

    const removed = await run((out) => uninstall(s.args("uninstall"), s.env, out))
    expect(removed.code, removed.lines.join("\n")).toBe(0)
    expect(removed.lines).toContain(`ralph-loop uninstall: removed "${SPEC}" from ${link}`)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readFileSync(target, "utf8")).toBe(
      `{\n  // my TUI\n  "theme": "dark",\n  "plugin": [\n    "other-tui" // stays\n  ]\n}\n`,
    )
    expect((statSync(target).mode & 0o777).toString(8)).toBe("600")
  })
})
