// `ralph-loop uninstall` and `doctor` on the config files users really have: symlinked into a
// dotfiles folder with mode 0600, a folder where the file should be, plugin specs that are no path,
// a "plugin" key given twice.
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { parseArgs, type CliArgs } from "../../src/cli/args.js"
import { doctor } from "../../src/cli/doctor.js"
import { packageInfo } from "../../src/cli/package-info.js"
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

async function run(command: (out: (line: string) => void) => number | Promise<number>): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = []
  const code = await command((line) => lines.push(line))
  return { code, lines }
}

describe("uninstall edits a config file where it really is", () => {
  it("a symlinked 0600 opencode.json: its target is edited and stays 0600, the link stays a link", async () => {
    const s = setup()
    mkdirSync(join(s.root, "dotfiles"))
    const target = join(s.root, "dotfiles", "opencode.json")
    writeFileSync(target, `{ "plugin": ["keep-me", "${SPEC}"], "provider": { "x": { "options": { "apiKey": "secret" } } } }\n`)
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
