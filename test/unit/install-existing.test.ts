// `ralph-loop install` when the scope lists the package already (issue 37): by path, by a file:
// spec, by the bare name, in any config file of the scope; the listing stays and nothing is added.
// No `opencode` on PATH: install must not need it to leave a listing as it is.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs, type CliArgs } from "../../src/cli/args.js"
import { install } from "../../src/cli/install.js"
import { packageInfo } from "../../src/listings/package-info.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const PKG = packageInfo()

interface Machine {
  project: string
  globalDir: string
  env: NodeJS.ProcessEnv
  run: (...flags: string[]) => { code: number; out: string }
}

/** A project (its own git root) with `files`, an empty global config folder, no `opencode` on PATH. */
function machine(files: Record<string, string> = {}): Machine {
  const root = tempDir("ralph-install-existing-")
  const project = join(root, "project")
  mkdirSync(join(project, ".git"), { recursive: true })
  const env = { XDG_CONFIG_HOME: join(root, "config"), PATH: "" }
  const globalDir = join(root, "config", "opencode")
  mkdirSync(globalDir, { recursive: true })
  for (const [name, text] of Object.entries(files)) {
    const file = name.startsWith("~/") ? join(globalDir, name.slice(2)) : join(project, name)
    mkdirSync(join(file, ".."), { recursive: true })
    writeFileSync(file, text.replaceAll("<root>", root))
  }
  const run = (...flags: string[]) => {
    const lines: string[] = []
    const argv = flags.length > 0 ? ["install", ...flags] : ["install", "--project", project]
    const code = install(parseArgs(argv, project) as CliArgs, env, (l) => lines.push(l))
    return { code, out: lines.join("\n") }
  }
  return { project, globalDir, env, run }
}

const list = (...specs: string[]) => JSON.stringify({ plugin: specs })

describe("install with the package listed already", () => {
  it.each([
    ["by path in opencode.json", "opencode.json", PKG.dir],
    ["by a file: spec in .opencode/opencode.jsonc (with comments)", ".opencode/opencode.jsonc", PKG.spec],
    ["by a relative path in opencode.jsonc", "opencode.jsonc", "./node_modules/ralph-loop"],
    ["through a symlink to the package", ".opencode/opencode.json", "<root>/link"],
  ])("%s: left as it is, nothing added, the settings file written; exit 0 without OpenCode", (_how, name, spec) => {
    const m = machine()
    symlinkSync(PKG.dir, join(m.project, "..", "link"))
    mkdirSync(join(m.project, "node_modules"), { recursive: true })
    symlinkSync(PKG.dir, join(m.project, "node_modules", "ralph-loop"))
    const text = name.endsWith("c") ? `{\n  // ours\n  "plugin": [${JSON.stringify(spec)}]\n}\n` : list(spec)
    mkdirSync(join(m.project, name, ".."), { recursive: true })
    writeFileSync(join(m.project, name), text.replace("<root>", join(m.project, "..")))
    const before = readFileSync(join(m.project, name), "utf8")

    const { code, out } = m.run()
    expect(code, out).toBe(0)
    expect(out).toContain(`ralph-loop install: already listed in ${join(m.project, name)} as `)
    expect(out).toContain("(reaches this package); left as it is, nothing added.")
    const tuiFile = join(m.project, ".opencode", "tui.json")
    expect(out).toContain(`add ${JSON.stringify(PKG.spec)} to the "plugin" list of ${tuiFile}.`)
    expect(readFileSync(join(m.project, name), "utf8")).toBe(before)
    expect(existsSync(join(m.project, ".opencode", "ralph-loop.jsonc"))).toBe(true)
  })

  it("with the TUI half listed too it says nothing of it; listed twice, it says one listing is enough", () => {
    const m = machine({
      "opencode.json": list(PKG.dir),
      ".opencode/opencode.json": list(PKG.spec),
      ".opencode/tui.json": list(PKG.spec),
    })
    const { code, out } = m.run()
    expect(code, out).toBe(0)
    expect(out.match(/already listed in/g)).toHaveLength(2)
    expect(out).toContain("Listed more than once: OpenCode loads each copy, the first runs and the others stay out.")
    expect(out).not.toContain("The TUI half is not listed")
  })

  it("the bare name (the npm registry's unrelated package) or a folder that is gone: left, and exit 1 with how to list this one", () => {
    for (const spec of ["ralph-loop", "ralph-loop@file:/nowhere/ralph-loop"]) {
      const m = machine({ "opencode.json": list(spec) })
      const { code, out } = m.run()
      expect(code, out).toBe(1)
      expect(out).toContain(`already listed in ${join(m.project, "opencode.json")} as ${JSON.stringify(spec)}`)
      expect(out).toContain(
        "To list this package instead: `ralph-loop uninstall` removes that listing, then `ralph-loop install`",
      )
      expect(existsSync(join(m.project, ".opencode", "ralph-loop.jsonc"))).toBe(false)
    }
  })

  it("--global sees a global listing, and only that scope's: a project listing does not stop a global install", () => {
    const m = machine({ "~/opencode.jsonc": list(PKG.spec) })
    const global = m.run("--global")
    expect(global.code, global.out).toBe(0)
    expect(global.out).toContain(`already listed in ${join(m.globalDir, "opencode.jsonc")}`)
    expect(global.out).toContain(join(m.globalDir, "tui.json"))
    expect(existsSync(join(m.globalDir, "ralph-loop.jsonc"))).toBe(true)

    const projectOnly = machine({ "opencode.json": list(PKG.dir) })
    const other = projectOnly.run("--global")
    // It goes on to `opencode plugin -g`, which is not on PATH here.
    expect(other.code).toBe(1)
    expect(other.out).not.toContain("already listed")
    expect(other.out).toContain("is not on PATH")
  })

  it("a project install with a global listing goes on, and notes that both would load unless OpenCode merges them", () => {
    // A global file: spec and the project's: one package name, so OpenCode keeps one (no note).
    const merged = machine({ "~/opencode.json": list(PKG.spec) }).run()
    expect(merged.out).not.toContain("also listed globally")
    expect(merged.out).toContain("is not on PATH")

    const m = machine({ "~/opencode.json": list(PKG.dir) })
    const { out } = m.run()
    expect(out).toContain(`ralph-loop install: note: also listed globally in ${join(m.globalDir, "opencode.json")} as `)
    expect(out).toContain("is not on PATH")
  })
})
