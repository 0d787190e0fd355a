// npm run demo — a real Ralph loop in the real OpenCode, with the built-in scripted model (no API
// key, no network), in a throwaway project. Prints what happens and how it ended.
//
//   npm run demo                                  scripted model, strategy recreate
//   npm run demo -- --strategy continue           another strategy (recreate | fresh | continue)
//   npm run demo -- --model anthropic/claude-sonnet-4-5 --task "..."
//                                                 a real model you have an API key for (taken from
//                                                 your environment, e.g. ANTHROPIC_API_KEY)
//   npm run demo -- --keep                        keep the temp project to look at afterwards
//   npm run demo -- --headless                    the same loop through `ralph-loop run`: it starts
//                                                 OpenCode itself, prints a line per iteration, exits
//                                                 with the loop's exit code (add --json for its events)
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { parseArgs } from "node:util"
import { packageDir, startHarness, writeProject, type Project } from "../test/harness/harness.js"
import { MockModel } from "../test/harness/mock-model.js"
import { isolatedEnv, opencodeBinary } from "../test/harness/opencode-server.js"
import type { MockRequest, Reply, Script } from "../test/harness/mock-model.js"
import type { RuntimeEvent } from "../test/harness/event-log.js"
import { reportFile } from "../test/harness/loop-files.js"
import { waitUntil } from "../test/harness/wait.js"

const { values: args } = parseArgs({
  options: {
    model: { type: "string" },
    task: { type: "string" },
    strategy: { type: "string", default: "recreate" },
    "max-retries": { type: "string", default: "5" },
    keep: { type: "boolean", default: false },
    headless: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    "timeout-minutes": { type: "string", default: "15" },
  },
})

const SCRIPTED_TASK =
  "Create a tiny greeting library: write notes/plan.md with the plan, src/greet.js exporting greet(name), and test/greet.test.js that checks it."

/** The built-in model: one file per iteration through OpenCode's write tool, then the promise. */
function scriptedModel(): Script {
  const steps = [
    {
      file: "notes/plan.md",
      content: "# Plan\n1. src/greet.js\n2. test/greet.test.js\n",
      said: "Wrote the plan. The library and its test are still to do.",
    },
    {
      file: "src/greet.js",
      content: "export const greet = (name) => `Hello, ${name}!`\n",
      said: "greet() is written. The test is still missing.",
    },
    {
      file: "test/greet.test.js",
      content:
        "import { greet } from '../src/greet.js'\nif (greet('Ralph') !== 'Hello, Ralph!') throw new Error('greet is wrong')\n",
      said: "The test is in place and the task is complete. <promise>DONE</promise>",
    },
  ]
  let turn = 0
  return {
    main: (request: MockRequest): Reply => {
      const step = steps[Math.min(turn, steps.length - 1)]!
      if (request.lastRole === "tool") {
        turn += 1
        return { text: step.said }
      }
      return {
        text: `Working on ${step.file}.`,
        toolCalls: [{ name: "write", args: { filePath: step.file, content: step.content } }],
      }
    },
    compaction: () => {
      const done = steps.slice(0, turn).map((s) => s.file)
      const left = steps.slice(turn).map((s) => s.file)
      return {
        text: `## Done\n${done.map((f) => `- ${f} written`).join("\n")}\n\n## Next\n${left.map((f) => `- write ${f}`).join("\n")}`,
      }
    },
  }
}

/** Real-model mode passes the provider credentials of your environment through; HOME stays isolated. */
function credentialEnv(): Record<string, string> {
  const wanted = /(_API_KEY|_API_TOKEN|_BASE_URL)$|^(AWS_|AZURE_|GOOGLE_|VERTEX_|GOOGLE_APPLICATION_CREDENTIALS)/
  return Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => wanted.test(k) && v !== undefined),
  ) as Record<string, string>
}

const started = Date.now()
const stamp = () => `[+${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s]`
const say = (line: string) => process.stdout.write(`${stamp()} ${line}\n`)
const short = (id: string) => id.slice(0, 14)
const oneLine = (text: string, max = 90) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function narrate(event: RuntimeEvent): void {
  const p = event.properties
  switch (event.type) {
    case "tui.toast.show":
      say(`toast    [${p.variant}] ${p.title} — ${oneLine(String(p.message), 110)}`)
      break
    case "session.created":
      say(`session  created ${short(String(p.info?.id))} "${p.info?.title}"`)
      break
    case "tui.session.select":
      say(`tui      → ${short(String(p.sessionID))}`)
      break
    case "session.deleted":
      say(`session  deleted ${short(String(p.info?.id))} (transcript archived first)`)
      break
  }
}

function filesUnder(dir: string, root = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === ".git" || name === "node_modules") return []
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path, root) : [relative(root, path)]
  })
}

/**
 * --headless: `ralph-loop run` as a CI job runs it — its own process, which starts `opencode serve`
 * in the project, follows the loop and exits with the loop's code. The scripted model (or your
 * --model) and HOME/XDG stay in a temp root, as in the other mode.
 */
async function headless(task: string): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), "ralph-demo-headless-"))
  const env = isolatedEnv(root, args.model ? credentialEnv() : {})
  const mock = await MockModel.start()
  try {
    const project = join(root, "projects", "demo")
    writeProject(project, env, mock, "demo", {
      pluginOptions: { maxRetries: Number(args["max-retries"]) },
      ...(args.model ? { opencodeConfig: { model: args.model, small_model: args.model } } : {}),
    })
    if (!args.model) mock.script("demo", scriptedModel())
    const argv = [
      "run",
      "--project",
      project,
      "--opencode",
      opencodeBinary(),
      ...(args.json ? ["--json"] : ["--verbose"]),
      "--",
      task,
      "--strategy",
      args.strategy ?? "recreate",
    ]
    process.stdout.write(`$ ralph-loop ${argv.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}\n\n`)
    const child = spawn(process.execPath, [join(packageDir(), "dist", "cli", "main.js"), ...argv], {
      env,
      stdio: ["ignore", "inherit", "inherit"],
    })
    const code = await new Promise<number>((resolve) => child.once("exit", (exit) => resolve(exit ?? 1)))
    process.stdout.write(`\nralph-loop run exited with ${code}${args.keep ? `\nkept: ${root}` : ""}\n`)
    return code
  } finally {
    await mock.close()
    if (!args.keep) rmSync(root, { recursive: true, force: true })
  }
}

async function main(): Promise<number> {
  const realModel = args.model
  const strategy = args.strategy ?? "recreate"
  const task = args.task ?? (realModel ? undefined : SCRIPTED_TASK)
  if (!task) {
    process.stderr.write('--model needs --task "..." (what the real model should do)\n')
    return 2
  }
  if (args.headless) return headless(task)
  const harness = await startHarness({ env: realModel ? credentialEnv() : {} })
  let project: Project | undefined
  try {
    project = await harness.project("demo", {
      pluginOptions: { strategy, maxRetries: Number(args["max-retries"]) },
      ...(realModel ? { opencodeConfig: { model: realModel, small_model: realModel } } : { script: scriptedModel() }),
    })
    const version = harness.server.output().match(/version=(\d+\.\d+\.\d+)/)?.[1] ?? "1.18.33"
    process.stdout.write(
      [
        `ralph-loop demo — real OpenCode ${version} (pid ${harness.server.pid}) on ${harness.server.url}`,
        `model:    ${realModel ?? `built-in scripted model on 127.0.0.1:${harness.mock.port}`}`,
        `project:  ${project.dir}`,
        `strategy: ${strategy}, maxRetries ${args["max-retries"]}`,
        `task:     ${task}`,
        "",
      ].join("\n"),
    )
    let seen = 0
    const events = project.events
    const pump = setInterval(() => {
      while (seen < events.events.length) narrate(events.events[seen++]!)
    }, 50)
    harness.mock.onRequest((request, reply) => {
      if (request.scope !== "demo" || request.kind === "title") return
      const what = request.kind === "compaction" ? "summary" : `turn   `
      const tools = reply.toolCalls?.map((c) => `${c.name} ${String(c.args.filePath ?? "")}`).join(", ")
      say(`model    ${what} ← ${oneLine(reply.text ?? "", 80)}${tools ? `  [tool: ${tools}]` : ""}`)
    })

    const first = await project.newSession("ralph demo")
    say(`user     /ralph ${oneLine(task, 80)}`)
    void project.command(first, "ralph", task).catch((error: unknown) => say(`command failed: ${String(error)}`))
    const end = await events.waitFor(
      (e) =>
        e.type === "tui.toast.show" &&
        /^Ralph · (done|retry limit|paused|cancelled|stopped)/.test(String(e.properties.title)),
      "the loop to end",
      Number(args["timeout-minutes"]) * 60_000,
    )
    // What trails the toast is narrated and listed too: the loop's end on disk with no old session
    // left to archive and delete, its report written, and every session idle.
    const dir = project.dir
    await waitUntil(
      () =>
        project!
          .loops()
          .every((l) => l.phase !== "stopped" || (l.retiring.length === 0 && existsSync(reportFile(dir, l.id)))),
      "the loop's last steps",
      60_000,
    )
    await project.waitForIdle(60_000)
    clearInterval(pump)
    while (seen < events.events.length) narrate(events.events[seen++]!)

    const lineage = [first, ...events.of("tui.session.select").map((e) => String(e.properties.sessionID))]
    const turns = harness.mock.requests("demo", "main").filter((r) => r.lastRole === "user").length
    const files = filesUnder(project.dir).filter((f) => !f.startsWith(".opencode/node_modules"))
    process.stdout.write(
      `${[
        "",
        "Result",
        `  ended:      ${end.properties.title} — ${oneLine(String(end.properties.message), 100)}`,
        `  iterations: ${turns}`,
        `  sessions:   ${lineage.map(short).join(" → ")}${strategy === "recreate" && lineage.length > 1 ? " (earlier ones archived, then deleted)" : ""}`,
        "  files in the project:",
        ...files.sort().map((f) => `    ${f}`),
        args.keep ? `\nkept: ${harness.root}` : "",
      ].join("\n")}\n`,
    )
    return /^Ralph · done/.test(String(end.properties.title)) || realModel ? 0 : 1
  } finally {
    if (args.keep) process.env.RALPH_TEST_KEEP = "1"
    await harness.stop()
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  },
)
