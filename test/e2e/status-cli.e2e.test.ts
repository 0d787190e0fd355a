// `ralph-loop status --json` from a second process while a real OpenCode runs a plan loop, and
// ralph_report.html once it ended: the CLI reads only the loop's files.
import { execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { statusDocumentSchema, type StatusDocument } from "../../src/status/document.js"
import { packageDir } from "../harness/harness.js"
import { gate, type MockRequest, type Reply } from "../harness/mock-model.js"
import { waitUntil } from "../harness/wait.js"
import { parseHtml } from "../html-check.js"
import { sharedHarness, waitForLoopEnd, waitForStreamedText } from "./helpers.js"

const harness = sharedHarness()
const CLI = join(packageDir(), "dist", "cli", "main.js")
const run = promisify(execFile)

const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
const storyOf = (r: MockRequest) => /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]
const fileCheck = (id: string) => ({
  name: `${id} file`,
  command: `test -f ${id}.txt || (echo 'FAIL: ${id}.txt is missing'; exit 1)`,
  kind: "test",
})

/** `ralph-loop status --json --project DIR` in a process of its own, parsed and checked against its schema. */
async function statusJSON(project: string): Promise<StatusDocument> {
  const { stdout } = await run(process.execPath, [CLI, "status", "--json", "--project", project], { encoding: "utf8" })
  return statusDocumentSchema.parse(JSON.parse(stdout))
}

describe("ralph-loop status and report, outside OpenCode", () => {
  it("status --json shows the iteration advancing during a loop; after it, ralph_report.html has one SVG per chart with one point per iteration", async () => {
    const stories = ["US-1", "US-2", "US-3"]
    // Each story's closing reply is held mid-stream until the test has read the status.
    const holds = new Map(stories.map((id) => [id, gate()]))
    const project = await harness().project("status-cli", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest): Reply => {
          if (isControl(r)) return { text: "OK" }
          const id = storyOf(r)
          if (!id) return { text: "nothing to do" }
          if (r.lastRole === "tool")
            return { text: `holding ${id} — done. <promise>DONE</promise>`, holdAfterFirstChunk: holds.get(id)?.opened }
          return { toolCalls: [{ name: "write", args: { filePath: `${id}.txt`, content: `${id} done\n` } }] }
        },
      },
    })
    mkdirSync(join(project.dir, ".opencode"), { recursive: true })
    const plan = {
      project: "Shop",
      userStories: stories.map((id, i) => ({
        id,
        title: `story ${i + 1}`,
        acceptanceCriteria: [`${id}.txt exists`],
        priority: i + 1,
        passes: false,
        checks: [fileCheck(id)],
      })),
    }
    writeFileSync(join(project.dir, ".opencode/prd.json"), `${JSON.stringify(plan, null, 2)}\n`)
    // --watch --json: a document per line whenever the loop's files change.
    const watcher = spawn(process.execPath, [CLI, "status", "--watch", "--json", "--project", project.dir], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    const watched: StatusDocument[] = []
    let buffered = ""
    watcher.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk
      const lines = buffered.split("\n")
      buffered = lines.pop() ?? ""
      for (const line of lines) if (line) watched.push(statusDocumentSchema.parse(JSON.parse(line)))
    })
    const exited = new Promise<number | null>((resolve) => watcher.on("exit", resolve))
    // Its first document: no loop yet.
    await waitUntil(() => watched.length > 0, "the first document of --watch")
    expect(watched[0]?.loops).toEqual([])

    const session = await project.newSession()
    void project.command(session, "ralph", "--prd").catch(() => undefined)

    const seen: Array<[number, number, string | undefined]> = []
    for (const [index, id] of stories.entries()) {
      await waitForStreamedText(project, new RegExp(`^holding ${id}`))
      const doc = await statusJSON(project.dir)
      const loop = doc.selected
      seen.push([loop?.iteration ?? 0, loop?.history.length ?? -1, loop?.plan?.current?.id])
      expect(loop?.state).toBe("running")
      expect(loop?.plan).toEqual({
        file: ".opencode/prd.json",
        current: { id, title: `story ${index + 1}` },
        done: index,
        total: 3,
        // Each story, and what marking it done rested on (issue 39): a record for those done in this loop.
        stories: stories.map((story, i) => ({
          id: story,
          title: `story ${i + 1}`,
          done: i < index,
          evidence: i < index ? expect.objectContaining({ verified: expect.any(Boolean) }) : null,
        })),
      })
      expect(doc.loops.map((l) => l.id)).toEqual([session])
      if (id === "US-2") {
        // `ralph-loop report` for the loop still running: its one decided iteration so far.
        const { stdout } = await run(process.execPath, [CLI, "report", "--project", project.dir], { encoding: "utf8" })
        const written = stdout.trim()
        expect(written).toBe(join(project.dir, ".opencode/sessions", session, "ralph_report.html"))
        const midway = parseHtml(readFileSync(written, "utf8"))
        expect(
          midway
            .filter((e) => e.tag === "circle" && e.attrs["data-series"] === "tokens")
            .map((e) => e.attrs["data-iteration"]),
        ).toEqual(["1"])
        // Out of the way: the one the plugin writes when the loop ends goes to the same path.
        rmSync(written)
      }
      // The watcher shows it too before the model goes on (it redraws at most once a second).
      await waitUntil(
        () => watched.some((d) => d.selected?.iteration === index + 1),
        `--watch to show iteration ${index + 1}`,
      )
      holds.get(id)?.open()
    }
    expect(seen).toEqual([
      [1, 0, "US-1"],
      [2, 1, "US-2"],
      [3, 2, "US-3"],
    ])

    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const file = join(project.dir, ".opencode/sessions", session, "ralph_report.html")
    await waitUntil(() => existsSync(file), "ralph_report.html")
    const elements = parseHtml(readFileSync(file, "utf8"))
    const charts = elements.filter((e) => e.tag === "svg")
    expect(charts.map((e) => e.attrs["data-chart"])).toEqual(["checks", "tokens", "cost", "time", "stories"])
    // One point per iteration in each chart (per series), for iterations 1 to 3.
    const iterationsOf = (chart: string, series: string) => {
      const start = elements.indexOf(charts.find((c) => c.attrs["data-chart"] === chart) ?? charts[0]!)
      const end = elements.findIndex((e, i) => i > start && e.tag === "svg")
      return elements
        .slice(start, end < 0 ? undefined : end)
        .filter((e) => e.tag === "circle" && e.attrs["data-series"] === series)
        .map((e) => Number(e.attrs["data-iteration"]))
    }
    for (const [chart, series] of [
      ["checks", "errors"],
      ["checks", "warnings"],
      ["tokens", "tokens"],
      ["cost", "cost"],
      ["time", "time"],
      ["stories", "stories done"],
    ] as const)
      expect([chart, series, iterationsOf(chart, series)]).toEqual([chart, series, [1, 2, 3]])
    expect(
      elements
        .filter((e) => e.tag === "circle" && e.attrs["data-series"] === "stories done")
        .map((e) => e.attrs["data-value"]),
    ).toEqual(["1", "2", "3"])

    // --watch saw the loop advance and end, then ends itself on SIGTERM.
    await waitUntil(
      () => watched.at(-1)?.selected?.state === "stopped",
      "--watch to show the loop stopped",
      30_000,
      () => JSON.stringify(watched.at(-1)?.selected),
    )
    const iterations = watched.flatMap((d) => (d.selected ? [d.selected.iteration] : []))
    expect(iterations).toEqual([...iterations].sort((a, b) => a - b))
    expect(new Set(iterations)).toEqual(new Set([1, 2, 3]))
    watcher.kill("SIGTERM")
    expect(await exited).toBe(0)

    // After the loop (and with OpenCode still up or not: the CLI needs only the files) the status says how it ended.
    const after = await statusJSON(project.dir)
    expect(after.selected).toMatchObject({
      state: "stopped",
      stopReason: "completed",
      iteration: 3,
      plan: { current: null, done: 3, total: 3 },
    })
    expect(after.selected?.history.map((r) => [r.iteration, r.failing, r.storiesDone])).toEqual([
      [1, [], 1],
      [2, [], 2],
      [3, [], 3],
    ])
    expect(after.selected?.struggle).toEqual({ signal: "ok", reason: "completed" })

    // /ralph-status in OpenCode shows the same signal (the plugin answers in a control turn).
    const before = project.requests("main").length
    await project.command(session, "ralph-status", "")
    const reply = project.requests("main").slice(before).find(isControl)?.lastUser ?? ""
    expect(reply).toMatch(/^Ralph loop — ended ✓ completed/m)
    expect(reply).toMatch(/^Struggle: ok — completed$/m)
  })

  it("a loop that completed in two iterations — the first looked around, the second wrote the file and promised: progress no, yes; ok — completed", async () => {
    const project = await harness().project("status-two", {
      pluginOptions: { strategy: "continue" },
      script: {
        main: (r: MockRequest): Reply => {
          if (isControl(r)) return { text: "OK" }
          if (r.lastRole === "tool") return { text: "Wrote done.txt. <promise>DONE</promise>" }
          // The first prompt: look around only; the next one does the work.
          return r.index === 0
            ? { text: "Looking around before I change anything." }
            : { toolCalls: [{ name: "write", args: { filePath: "done.txt", content: "done\n" } }] }
        },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "write done.txt")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" })
    const doc = await statusJSON(project.dir)
    expect(doc.selected?.history.map((r) => [r.iteration, r.decision, r.progress])).toEqual([
      [1, "restart", false],
      [2, "complete", true],
    ])
    expect(doc.selected?.struggle).toEqual({ signal: "ok", reason: "completed" })
    const { stdout } = await run(process.execPath, [CLI, "status", "--project", project.dir], { encoding: "utf8" })
    expect(stdout).toContain("\nStruggle: ok — completed\n")
    const before = project.requests("main").length
    await project.command(session, "ralph-status", "")
    const reply = project.requests("main").slice(before).find(isControl)?.lastUser ?? ""
    expect(reply).toMatch(/^Struggle: ok — completed$/m)
  })

  it("a loop whose check keeps failing: stuck, in status --json, /ralph-status and the HTML report", async () => {
    const project = await harness().project("status-stuck", {
      pluginOptions: {
        strategy: "continue",
        stagnationLimit: 2,
        maxRetries: 10,
        checks: [{ name: "types", kind: "typecheck", command: 'echo "src/a.ts(1,1): error TS2322: nope"; exit 2' }],
      },
      script: {
        main: (r: MockRequest) =>
          isControl(r) ? { text: "OK" } : { text: `attempt ${"x".repeat(r.index + 1)} <promise>DONE</promise>` },
      },
    })
    const session = await project.newSession()
    await project.command(session, "ralph", "fix the types")
    await waitForLoopEnd(project, { phase: "stopped", stopReason: "stagnation" })
    const file = join(project.dir, ".opencode/sessions", session, "ralph_report.html")
    await waitUntil(() => existsSync(file), "ralph_report.html")

    const doc = await statusJSON(project.dir)
    expect(doc.selected?.history.map((r) => [r.iteration, r.failing, r.rejected, r.checks?.errors])).toEqual([
      [1, ["types"], true, 1],
      [2, ["types"], true, 1],
      [3, ["types"], true, 1],
    ])
    const stuck = doc.selected?.struggle
    // Nothing changes in the work tree and the checks find as much each time: neither counts as progress.
    expect(doc.selected?.history.map((r) => r.progress)).toEqual([false, false, false])
    expect(stuck).toEqual({ signal: "stuck", reason: "3 iterations in a row without progress" })
    const html = parseHtml(readFileSync(file, "utf8"))
    expect(html.find((e) => e.attrs["data-signal"])?.attrs["data-signal"]).toBe("stuck")
    const before = project.requests("main").length
    await project.command(session, "ralph-status", "")
    const reply = project.requests("main").slice(before).find(isControl)?.lastUser ?? ""
    expect(reply).toContain(`\nStruggle: stuck — ${stuck?.reason}\n`)
  })
})
