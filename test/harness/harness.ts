// One real OpenCode server and one scripted model for a test file; a fresh project directory
// (its own plugin instance, config, model script and event stream) for each test.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk"
import type { Loop } from "../../src/loop/loop.js"
import { EventLog } from "./event-log.js"
import { savedLoops } from "./loop-files.js"
import { MockModel, type MockRequest, type RequestKind, type Script } from "./mock-model.js"
import { isolatedEnv, seedConfigDir, startOpencodeServer, type OpencodeServer } from "./opencode-server.js"
import { waitUntil } from "./wait.js"

/** The ralph-loop package directory: the plugin is loaded from here, as a user loads a path. */
export function packageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (dir !== dirname(dir)) {
    const manifest = join(dir, "package.json")
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "ralph-loop") return dir
    dir = dirname(dir)
  }
  throw new Error("ralph-loop package.json not found above the harness")
}

export interface ProjectOptions {
  /** Options tuple passed to the plugin (the factory's second argument). */
  pluginOptions?: Record<string, unknown>
  /** Raw text of `.opencode/ralph-loop.jsonc`. */
  configFile?: string
  configFileName?: string
  script?: Script
  /** Load the plugin at all (false: a project without ralph-loop). */
  withPlugin?: boolean
  /** Extra top-level keys for opencode.json. */
  opencodeConfig?: Record<string, unknown>
  /** More models of the mock provider (`mock/<name>`), served by the same script as mock-model. */
  models?: string[]
}

export interface Project {
  readonly dir: string
  readonly scope: string
  /** The SDK client and event log of the server running now (new ones after a restart). */
  readonly client: OpencodeClient
  readonly events: EventLog
  /** Events of earlier server runs, oldest first. */
  readonly pastEvents: EventLog[]
  /** Requests the model received from this project. */
  requests(kind?: RequestKind): MockRequest[]
  script(script: Script): void
  waitForRequests(count: number, kind?: RequestKind, timeoutMs?: number): Promise<void>
  /** The loops ralph-loop has on disk for this project now. */
  loops(): Loop[]
  /**
   * Resolves once no session of the project is working: each one's last status is idle, one went
   * idle after the model's last request (so that request's turn is over) and the server agrees.
   */
  waitForIdle(timeoutMs?: number): Promise<void>
  newSession(title?: string): Promise<string>
  /** Runs a slash command; resolves when its first turn has ended. */
  command(sessionID: string, command: string, args: string): Promise<void>
  /** Stops its event log; a later restartServer leaves it alone. */
  close(): void
}

export interface Harness {
  readonly root: string
  readonly server: OpencodeServer
  readonly mock: MockModel
  project(name: string, options?: ProjectOptions): Promise<Project>
  /**
   * Ends the server with `signal` (by PID) and starts it again on the same HOME and projects;
   * every project gets a new client and event log. `whileStopped` runs between the two.
   */
  restartServer(signal: "SIGTERM" | "SIGKILL", whileStopped?: () => void): Promise<void>
  stop(): Promise<void>
}

const git = (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=ralph-test", "-c", "user.email=ralph@test.invalid", ...args], {
    cwd,
    env,
    stdio: "ignore",
  })

export function writeProject(
  dir: string,
  env: NodeJS.ProcessEnv,
  mock: MockModel,
  scope: string,
  options: ProjectOptions = {},
): void {
  mkdirSync(dir, { recursive: true })
  const plugin = options.pluginOptions ? [[packageDir(), options.pluginOptions]] : [packageDir()]
  const config = {
    $schema: "https://opencode.ai/config.json",
    provider: {
      mock: {
        npm: "@ai-sdk/openai-compatible",
        name: "Mock",
        options: { baseURL: mock.baseURL(scope), apiKey: "mock" },
        models: {
          "mock-model": { name: "Mock Model" },
          ...Object.fromEntries((options.models ?? []).map((name) => [name, { name }])),
        },
      },
    },
    model: "mock/mock-model",
    small_model: "mock/mock-model",
    autoupdate: false,
    share: "disabled",
    snapshot: false,
    plugin: options.withPlugin === false ? [] : plugin,
    ...options.opencodeConfig,
  }
  writeFileSync(join(dir, "opencode.json"), JSON.stringify(config, null, 2))
  writeFileSync(join(dir, "README.md"), `# ${scope}\n`)
  // The plugin writes under .opencode/, which makes it a config folder OpenCode npm-installs into
  // at its next start; seeded, so a restart in a test does not wait on the registry.
  seedConfigDir(join(dir, ".opencode"))
  if (options.configFile !== undefined)
    writeFileSync(join(dir, ".opencode", options.configFileName ?? "ralph-loop.jsonc"), options.configFile)
  if (!existsSync(join(dir, ".git"))) {
    git(dir, env, "init", "-q")
    git(dir, env, "add", "-A")
    git(dir, env, "commit", "-q", "-m", "init")
  }
}

export async function startHarness(options: { env?: Record<string, string> } = {}): Promise<Harness> {
  const root = mkdtempSync(join(tmpdir(), "ralph-e2e-"))
  const env = isolatedEnv(root, options.env)
  const projects: LiveProject[] = []
  // The server's own directory is a project too: it is what the readiness probe boots.
  const base = join(root, "projects", "_base")
  let mock: MockModel | undefined
  let server: OpencodeServer
  try {
    mock = await MockModel.start()
    writeProject(base, env, mock, "_base", { withPlugin: false })
    server = await startOpencodeServer({ cwd: base, env, readyDirectory: base })
  } catch (error) {
    await mock?.close()
    rmSync(root, { recursive: true, force: true })
    throw error
  }

  const attach = async (project: LiveProject) => {
    project.client = createOpencodeClient({ baseUrl: server.url, directory: project.dir })
    project.events = await EventLog.attach(project.client)
  }

  return {
    root,
    get server() {
      return server
    },
    mock,
    async project(name, projectOptions = {}) {
      const dir = join(root, "projects", name)
      writeProject(dir, env, mock, name, projectOptions)
      if (projectOptions.script) mock.script(name, projectOptions.script)
      const project: LiveProject = {
        dir,
        scope: name,
        client: undefined as unknown as OpencodeClient,
        events: undefined as unknown as EventLog,
        pastEvents: [],
        requests: (kind) => mock.requests(name, kind),
        script: (script) => mock.script(name, script),
        waitForRequests: (count, kind = "main", timeoutMs) =>
          mock.waitFor(
            () => mock.requests(name, kind).length >= count,
            timeoutMs,
            `${count} ${kind} requests in ${name}`,
          ),
        loops: () => savedLoops(dir),
        async waitForIdle(timeoutMs) {
          await waitUntil(
            () => allIdle(project, mock.requests(name)),
            `every session of ${name} idle`,
            timeoutMs,
            () => lastStatuses(project.events),
          )
        },
        async newSession(title = `test ${name}`) {
          const { data, error } = await project.client.session.create({ body: { title } })
          if (!data) throw new Error(`session.create failed: ${JSON.stringify(error)}`)
          return data.id
        },
        async command(sessionID, command, args) {
          const { error } = await project.client.session.command({
            path: { id: sessionID },
            body: { command, arguments: args },
          })
          if (error)
            throw new Error(
              `/${command} failed: ${JSON.stringify(error)}\n--- server output ---\n${server.output().slice(-4_000)}`,
            )
        },
        close: () => {
          project.events.close()
          // A closed project is not reattached after a restart (each one would boot an instance).
          const index = projects.indexOf(project)
          if (index >= 0) projects.splice(index, 1)
        },
      }
      await attach(project)
      projects.push(project)
      return project
    },
    async restartServer(signal, whileStopped) {
      for (const project of projects) project.events.close()
      await server.stop(signal)
      whileStopped?.()
      server = await startOpencodeServer({ cwd: base, env, readyDirectory: base })
      for (const project of projects) {
        project.pastEvents.push(project.events)
        await attach(project)
      }
    },
    async stop() {
      for (const project of [...projects]) project.close()
      await server.stop()
      await mock.close()
      if (!process.env.RALPH_TEST_KEEP) rmSync(root, { recursive: true, force: true })
    },
  }
}

/** The last status OpenCode published for each session still there. */
function statuses(events: EventLog): Map<string, { type: string; at: number }> {
  const deleted = new Set(events.of("session.deleted").map((e) => String(e.properties.info?.id)))
  const last = new Map<string, { type: string; at: number }>()
  for (const e of events.of("session.status")) {
    const sessionID = String(e.properties.sessionID)
    if (!deleted.has(sessionID)) last.set(sessionID, { type: String(e.properties.status?.type), at: e.at })
  }
  return last
}

function lastStatuses(events: EventLog): string {
  return [...statuses(events)].map(([id, s]) => `${id} ${s.type}`).join(", ") || "no session status"
}

async function allIdle(project: Project, requests: MockRequest[]): Promise<boolean> {
  const events = project.events
  if ([...statuses(events).values()].some((s) => s.type !== "idle")) return false
  // Title requests run beside a turn; the model's last turn request must be followed by an idle.
  const lastTurn = requests.filter((r) => r.kind !== "title").at(-1)?.at ?? 0
  const since = events.events[0]?.at ?? Number.POSITIVE_INFINITY
  const endedAfter =
    lastTurn < since ||
    events.events.some((e) => e.type === "session.status" && e.properties.status?.type === "idle" && e.at >= lastTurn)
  if (!endedAfter) return false
  const { data } = await project.client.session.status()
  return Object.values(data ?? {}).every((status) => status.type === "idle")
}

type LiveProject = { -readonly [K in keyof Project]: Project[K] }
