// The `ralph-loop` command (dist/cli/main.js) against the real OpenCode binary, on a throwaway
// machine: HOME, XDG and the temp dir in a temp folder, `opencode` on PATH through a folder of its
// own (or not on PATH at all).
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createScanner, parse } from "jsonc-parser"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { packageDir } from "../harness/harness.js"
import { isolatedEnv, opencodeBinary, seedConfigDir, startOpencodeServer } from "../harness/opencode-server.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()
// A test here runs `opencode plugin` (which reads the npm registry) and `opencode serve`, several
// times: minutes on a busy 2-core machine.
const SLOW = 300_000
const SPEC = `ralph-loop@file:${packageDir()}`
const CLI = join(packageDir(), "dist", "cli", "main.js")

interface Machine {
  env: NodeJS.ProcessEnv
  project: string
  globalDir: string
}

/** A temp HOME with `opencode` on PATH (or not), and a git project with the config files given. */
function machine(files: Record<string, string> = {}, withOpencode = true): Machine {
  const root = tempDir("ralph-cli-")
  const binDir = join(root, "bin")
  mkdirSync(binDir)
  if (withOpencode) symlinkSync(opencodeBinary(), join(binDir, "opencode"))
  // As `npx ralph-loop` runs it: this package's node_modules/.bin first, whose opencode (the tests'
  // opencode-ai, without its postinstall) does not run; the CLI must look past it.
  const npxBin = join(packageDir(), "node_modules", ".bin")
  const env: NodeJS.ProcessEnv = {
    ...isolatedEnv(root),
    PATH: [npxBin, binDir, dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
  }
  const project = join(root, "project")
  mkdirSync(project)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(project, name)), { recursive: true })
    writeFileSync(join(project, name), text)
  }
  execFileSync("git", ["init", "-q"], { cwd: project, env })
  return { env, project, globalDir: join(env.XDG_CONFIG_HOME as string, "opencode") }
}

function cli(m: Machine, ...args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: m.project,
    env: m.env,
    encoding: "utf8",
    timeout: 120_000,
  })
  return { status: result.status, out: `${result.stdout}${result.stderr}` }
}

/** Every comment in a JSONC text. */
function comments(text: string): string[] {
  const scanner = createScanner(text, false)
  const found: string[] = []
  for (let kind: number = scanner.scan(); kind !== 17; kind = scanner.scan())
    if (kind === 12 || kind === 13) found.push(scanner.getTokenValue())
  return found
}

const CONFIG_NAMES = ["opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"]
const TUI_CONFIG_NAMES = ["tui.json", "tui.jsonc", ".opencode/tui.json", ".opencode/tui.jsonc"]

/** The plugin entries of every config file of the project, by file. */
function pluginEntries(project: string, names = CONFIG_NAMES): Record<string, unknown[]> {
  const entries: Record<string, unknown[]> = {}
  for (const name of names) {
    const file = join(project, name)
    if (existsSync(file)) entries[name] = (parse(readFileSync(file, "utf8")) as { plugin?: unknown[] }).plugin ?? []
  }
  return entries
}

const specOf = (entry: unknown) => (Array.isArray(entry) ? entry[0] : entry)

/** The names of the commands `opencode serve` in `project` lists. */
async function servedCommands(m: Machine): Promise<string[]> {
  // OpenCode npm-installs into every config folder at start unless it is seeded (see the harness).
  seedConfigDir(join(m.project, ".opencode"))
  const server = await startOpencodeServer({ cwd: m.project, env: m.env, readyDirectory: m.project })
  try {
    const { data } = await createOpencodeClient({ baseUrl: server.url, directory: m.project }).command.list()
    return (data ?? []).map((c) => c.name)
  } finally {
    await server.stop()
  }
}

const PROJECT_CONFIG = `{
  // the project's own OpenCode settings
  "$schema": "https://opencode.ai/config.json",
  /* plugins this project uses */
  "plugin": [
    "some-other-plugin" // not ours: stays
  ],
  "share": "disabled" // the end
}
`

describe("ralph-loop install / uninstall / doctor", () => {
  it(
    "install --project twice: listed once, settings file with $schema, `ralph` served; doctor passes, then fails on a broken setting; uninstall keeps every comment",
    async () => {
      const m = machine({ ".opencode/opencode.jsonc": PROJECT_CONFIG })
      const before = comments(PROJECT_CONFIG)

      for (let run = 0; run < 2; run += 1) {
        const result = cli(m, "install", "--project", m.project)
        expect(result.status, result.out).toBe(0)
      }
      const listed = Object.values(pluginEntries(m.project))
        .flat()
        .filter((e) => specOf(e) === SPEC)
      expect(listed).toHaveLength(1)
      expect(pluginEntries(m.project)[".opencode/opencode.jsonc"]?.map(specOf)).toEqual(["some-other-plugin", SPEC])
      expect(comments(readFileSync(join(m.project, ".opencode/opencode.jsonc"), "utf8"))).toEqual(before)
      // `opencode plugin` detects the package's two targets and lists the TUI half in tui.json too.
      expect(Object.values(pluginEntries(m.project, TUI_CONFIG_NAMES)).flat().map(specOf)).toEqual([SPEC])

      const settingsFile = join(m.project, ".opencode", "ralph-loop.jsonc")
      const settings = parse(readFileSync(settingsFile, "utf8")) as { $schema?: string }
      expect(settings.$schema).toBe(`file://${join(packageDir(), "ralph-loop.schema.json")}`)
      expect(existsSync(fileURLToPath(settings.$schema as string))).toBe(true)

      expect(await servedCommands(m)).toContain("ralph")

      const healthy = cli(m, "doctor", "--project", m.project)
      expect(healthy.status, healthy.out).toBe(0)
      expect(healthy.out).toMatch(/ok {4}OpenCode 1\.18\.\d+/)
      expect(healthy.out).toContain(
        `listed (project) in ${join(m.project, ".opencode/opencode.jsonc")}: "${SPEC}" — reaches this package`,
      )

      const good = readFileSync(settingsFile, "utf8")
      writeFileSync(settingsFile, good.replace(/\}\s*$/, ', "maxRetries": "lots" }\n'))
      const broken = cli(m, "doctor", "--project", m.project)
      expect(broken.status, broken.out).toBe(1)
      expect(broken.out).toMatch(/FAIL {2}settings: \.opencode\/ralph-loop\.jsonc: "maxRetries" /)
      writeFileSync(settingsFile, good)

      const removed = cli(m, "uninstall", "--project", m.project)
      expect(removed.status, removed.out).toBe(0)
      expect(
        Object.values(pluginEntries(m.project))
          .flat()
          .filter((e) => String(specOf(e)).startsWith("ralph-loop")),
      ).toEqual([])
      expect(pluginEntries(m.project)[".opencode/opencode.jsonc"]).toEqual(["some-other-plugin"])
      expect(Object.values(pluginEntries(m.project, TUI_CONFIG_NAMES)).flat()).toEqual([])
      expect(comments(readFileSync(join(m.project, ".opencode/opencode.jsonc"), "utf8"))).toEqual(before)
      expect(existsSync(settingsFile)).toBe(true) // the user's settings stay

      const afterwards = cli(m, "doctor", "--project", m.project)
      expect(afterwards.status).toBe(1)
      expect(afterwards.out).toContain("ralph-loop is not listed in any OpenCode config file")
    },
    SLOW,
  )

  it(
    "uninstall removes every form of the entry from every project config file (tuple, path, file: spec), comments kept",
    async () => {
      const root = `{
  // root config
  "plugin": [
    /* first */ ["${SPEC}", { "maxRetries": 3 }], // the tuple
    "keep-me", // stays
    "${packageDir()}" // the path form
  ]
}
`
      const m = machine({ "opencode.jsonc": root, ".opencode/opencode.json": `{ "plugin": ["${SPEC}"] }\n` })
      const doctor = cli(m, "doctor", "--project", m.project)
      expect(doctor.out.match(/— reaches this package/g)).toHaveLength(3)

      const result = cli(m, "uninstall", "--project", m.project)
      expect(result.status, result.out).toBe(0)
      expect(pluginEntries(m.project)).toEqual({ "opencode.jsonc": ["keep-me"], ".opencode/opencode.json": [] })
      expect(comments(readFileSync(join(m.project, "opencode.jsonc"), "utf8"))).toEqual(comments(root))
    },
    SLOW,
  )

  it(
    "install --global uses `opencode plugin -g`, and uninstall --global removes it from the global config only",
    async () => {
      const m = machine({ "opencode.json": `{ "plugin": ["${SPEC}"] }\n` })
      const result = cli(m, "install", "--global")
      expect(result.status, result.out).toBe(0)
      const globalFile = ["opencode.json", "opencode.jsonc"]
        .map((n) => join(m.globalDir, n))
        .find((f) => existsSync(f)) as string
      expect((parse(readFileSync(globalFile, "utf8")) as { plugin: unknown[] }).plugin).toEqual([SPEC])
      expect(
        (parse(readFileSync(join(m.globalDir, "ralph-loop.jsonc"), "utf8")) as { $schema: string }).$schema,
      ).toMatch(/ralph-loop\.schema\.json$/)

      expect(cli(m, "uninstall", "--global").status).toBe(0)
      expect((parse(readFileSync(globalFile, "utf8")) as { plugin: unknown[] }).plugin).toEqual([])
      expect(pluginEntries(m.project)["opencode.json"]).toEqual([SPEC])
    },
    SLOW,
  )

  it("install without OpenCode on PATH prints the command and the JSON to add, changes nothing, and exits non-zero", () => {
    const m = machine({}, false)
    const result = cli(m, "install", "--project", m.project)
    expect(result.status).toBe(1)
    expect(result.out).toContain(`opencode plugin ${SPEC}`)
    expect(result.out).toContain(JSON.stringify({ plugin: [SPEC] }, null, 2))
    expect(existsSync(join(m.project, ".opencode"))).toBe(false)
    const doctor = cli(m, "doctor", "--project", m.project)
    expect(doctor.status).toBe(1)
    expect(doctor.out).toContain("FAIL  OpenCode: the `opencode` command is not on PATH")
  })

  it("doctor names a spec that reaches the npm package of the same name, and a file: spec that leads nowhere", () => {
    const m = machine({ "opencode.json": `{ "plugin": ["ralph-loop", "ralph-loop@file:/nowhere/ralph-loop"] }\n` })
    const result = cli(m, "doctor", "--project", m.project)
    expect(result.status).toBe(1)
    expect(result.out).toMatch(
      /FAIL {2}listed \(project\) in .*opencode\.json: "ralph-loop" — reaches the npm registry's `ralph-loop`, an unrelated package/,
    )
    expect(result.out).toMatch(
      /FAIL {2}listed \(project\) in .*opencode\.json: "ralph-loop@file:\/nowhere\/ralph-loop" — leads to \/nowhere\/ralph-loop, which does not exist/,
    )
  })
})

describe("the npm pack tarball", () => {
  it(
    "holds only what the package needs, and loads in the real OpenCode by its path",
    async () => {
      const m = machine()
      const out = join(m.project, "..", "pack")
      mkdirSync(out)
      // --ignore-scripts: dist/ is built already (npm test builds it), and other test files load it meanwhile.
      const packed = JSON.parse(
        execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], {
          cwd: packageDir(),
          env: { ...m.env, npm_config_update_notifier: "false" },
          encoding: "utf8",
        }),
      ) as Array<{ filename: string; files: Array<{ path: string }> }>
      const files = packed[0]!.files.map((f) => f.path)
      expect(files).toEqual(
        expect.arrayContaining([
          "package.json",
          "README.md",
          "CHANGELOG.md",
          "ralph-loop.schema.json",
          "dist/index.js",
          "dist/tui/index.js",
          "dist/cli/main.js",
        ]),
      )
      const unexpected = files.filter(
        (f) =>
          !/^(package\.json|README\.md|CHANGELOG\.md|ralph-loop\.schema\.json|opencode\.example\.json|dist\/.+\.(js|d\.ts))$/.test(
            f,
          ),
      )
      expect(unexpected).toEqual([])

      const tarball = join(out, packed[0]!.filename)
      const installed = execFileSync(opencodeBinary(), ["plugin", `ralph-loop@file:${tarball}`], {
        cwd: m.project,
        env: m.env,
        encoding: "utf8",
        timeout: 180_000,
      })
      expect(installed).toContain("Installed")
      expect(installed).toContain("Detected server + tui targets")
      expect(Object.values(pluginEntries(m.project, TUI_CONFIG_NAMES)).flat().map(specOf)).toEqual([
        `ralph-loop@file:${tarball}`,
      ])
      expect(await servedCommands(m)).toEqual(expect.arrayContaining(["ralph", "cancel-ralph"]))
    },
    SLOW,
  )
})

describe("the README's install command", () => {
  it(
    "`opencode plugin ralph-loop@file:<path> -g` in a fresh HOME: a project without any config of its own serves `ralph`",
    async () => {
      const m = machine()
      const out = execFileSync(opencodeBinary(), ["plugin", SPEC, "-g"], {
        cwd: m.project,
        env: m.env,
        encoding: "utf8",
        timeout: 120_000,
      })
      expect(out).toContain("Installed")
      expect(await servedCommands(m)).toEqual(expect.arrayContaining(["ralph", "cancel-ralph", "ralph-status"]))
    },
    SLOW,
  )
})
