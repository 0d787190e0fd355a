// `ralph-loop doctor` on a package listed twice (issue 37): listings that reach different modules
// (a path and a file: spec, a path and a symlink) load a copy each, and the later ones stay out;
// listings OpenCode merges (two file: specs: one package name) load once.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs, type CliArgs } from "../../src/cli/args.js"
import { doctor } from "../../src/cli/doctor.js"
import { packageInfo } from "../../src/listings/package-info.js"
import { loadKey } from "../../src/listings/plugin-listings.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
const PKG = packageInfo()
const list = (...specs: string[]) => JSON.stringify({ plugin: specs })

/** doctor's output for a project (its own git root) with `files`; `~/` files go to the global folder. */
async function doctorOf(files: Record<string, string>): Promise<string> {
  const root = tempDir("ralph-doctor-listings-")
  const project = join(root, "project")
  mkdirSync(join(project, ".git"), { recursive: true })
  symlinkSync(PKG.dir, join(root, "link"))
  const env = { XDG_CONFIG_HOME: join(root, "config"), PATH: "" }
  for (const [name, text] of Object.entries(files)) {
    const file = name.startsWith("~/") ? join(root, "config", "opencode", name.slice(2)) : join(project, name)
    mkdirSync(join(file, ".."), { recursive: true })
    writeFileSync(file, text.replaceAll("<root>", root))
  }
  const lines: string[] = []
  await doctor(parseArgs(["doctor", "--project", project], project) as CliArgs, env, (l) => lines.push(l))
  return lines.join("\n")
}

describe("doctor on a double listing", () => {
  it("a path and the file: spec (what install used to add): two copies load, the first runs, the other stays out", async () => {
    const out = await doctorOf({ "opencode.json": list(PKG.dir), ".opencode/opencode.json": list(PKG.spec) })
    expect(out).toContain(
      "warn  the server half is listed 2 times and OpenCode loads 2 copies: the first loaded runs, the others stay out",
    )
    expect(out).not.toContain("later config wins")
  })

  it("a global file: spec and the package's path through a symlink in the project: two copies", async () => {
    const out = await doctorOf({ "~/opencode.json": list(PKG.spec), "opencode.json": list("<root>/link") })
    expect(out).toContain("the server half is listed 2 times and OpenCode loads 2 copies")
  })

  it("two file: specs (one package name to OpenCode), or one path twice: loaded once", async () => {
    const specs = await doctorOf({
      "~/opencode.json": list(PKG.spec),
      "opencode.json": list(`ralph-loop@file:<root>/link`),
    })
    expect(specs).toContain(
      "warn  the server half is listed 2 times as one plugin: OpenCode loads it once (the later entry)",
    )
    const paths = await doctorOf({ "opencode.json": list(PKG.dir), ".opencode/opencode.json": list(PKG.dir) })
    expect(paths).toContain("the server half is listed 2 times as one plugin")
  })

  it("the key OpenCode merges entries by: the package name of an npm-style spec, the file URL of a path", () => {
    expect(loadKey("ralph-loop@file:/a", "/cfg")).toBe("ralph-loop")
    expect(loadKey("/a/ralph-loop", "/cfg")).toBe("file:///a/ralph-loop")
    expect(loadKey("./ralph-loop", "/cfg")).toBe("file:///cfg/ralph-loop")
    expect(loadKey("file:///x/y", "/cfg")).toBe("file:///x/y")
  })
})
