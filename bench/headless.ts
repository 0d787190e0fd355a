// Benchmark — what `ralph-loop run` itself costs around a loop, in the real OpenCode with the
// scripted model, on a one-iteration loop:
//   start → first prompt: from spawning `ralph-loop run` to the model's first request; against
//     `opencode serve` started alone (spawned, ready for the project) plus a session and /ralph sent
//     by a client — the same steps without the runner.
//   end → exit: from the end of the model's last reply to the runner's exit (the plugin decides,
//     writes the report, the runner reads it and stops the server); against stopping the server
//     alone (SIGTERM to exit).
// Each run gets a fresh project; the median of the runs is reported.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { packageDir, writeProject } from "../test/harness/harness.js"
import { MockModel, type Script } from "../test/harness/mock-model.js"
import { isolatedEnv, opencodeBinary, startOpencodeServer } from "../test/harness/opencode-server.js"
import { median, QUICK } from "./util.js"

export interface HeadlessResult {
  runs: number
  /** `ralph-loop run`: spawn → the model's first request. */
  runnerStartMs: number
  /** `opencode serve` alone, then a session and /ralph from a client: spawn → the model's first request. */
  aloneStartMs: number
  /** `ralph-loop run`: the model's last reply ended → the runner exited (its server stopped). */
  runnerEndMs: number
  /** `opencode serve` alone: SIGTERM → exited. */
  aloneStopMs: number
}

const DONE: Script = { main: [{ text: "All finished. <promise>DONE</promise>" }] }

export async function runHeadlessBench(log: (line: string) => void): Promise<HeadlessResult> {
  const runs = QUICK ? 1 : 3
  const root = mkdtempSync(join(tmpdir(), "ralph-bench-headless-"))
  const env = isolatedEnv(root)
  const mock = await MockModel.start()
  const samples = {
    runnerStart: [] as number[],
    aloneStart: [] as number[],
    runnerEnd: [] as number[],
    aloneStop: [] as number[],
  }
  try {
    for (let i = 0; i < runs; i += 1) {
      log(`headless: run ${i + 1}/${runs}, opencode serve alone`)
      const alone = `alone-${i}`
      const aloneDir = join(root, "projects", alone)
      writeProject(aloneDir, env, mock, alone)
      mock.script(alone, DONE)
      const spawnedAt = Date.now()
      const server = await startOpencodeServer({ cwd: aloneDir, env, readyDirectory: aloneDir })
      const client = createOpencodeClient({ baseUrl: server.url, directory: aloneDir })
      const { data: session } = await client.session.create({ body: { title: "bench" } })
      // Its answer (after the turn) may be cut off by the stop below.
      void client.session
        .command({ path: { id: session?.id as string }, body: { command: "ralph", arguments: "finish the task" } })
        .catch(() => undefined)
      await mock.waitFor(() => mock.requests(alone, "main").length > 0, 120_000, "the first request (alone)")
      samples.aloneStart.push((mock.requests(alone, "main")[0]?.at ?? 0) - spawnedAt)
      await mock.waitFor(
        () => mock.requests(alone, "main")[0]?.endedAt !== undefined,
        120_000,
        "the reply's end (alone)",
      )
      const stopAt = Date.now()
      await server.stop()
      samples.aloneStop.push(Date.now() - stopAt)

      log(`headless: run ${i + 1}/${runs}, ralph-loop run`)
      const name = `runner-${i}`
      const dir = join(root, "projects", name)
      writeProject(dir, env, mock, name)
      mock.script(name, DONE)
      const startedAt = Date.now()
      const child = spawn(
        process.execPath,
        [
          join(packageDir(), "dist", "cli", "main.js"),
          "run",
          "--project",
          dir,
          "--opencode",
          opencodeBinary(),
          "--json",
          "finish the task",
        ],
        { env, stdio: "ignore" },
      )
      const exitedAt = new Promise<number>((resolve) => child.once("exit", () => resolve(Date.now())))
      await mock.waitFor(() => mock.requests(name, "main").length > 0, 120_000, "the first request (runner)")
      const first = mock.requests(name, "main")[0]
      samples.runnerStart.push((first?.at ?? 0) - startedAt)
      const exit = await exitedAt
      const lastEnd = mock.requests(name, "main").at(-1)?.endedAt ?? exit
      samples.runnerEnd.push(exit - lastEnd)
    }
  } finally {
    await mock.close()
    rmSync(root, { recursive: true, force: true })
  }
  return {
    runs,
    runnerStartMs: median(samples.runnerStart),
    aloneStartMs: median(samples.aloneStart),
    runnerEndMs: median(samples.runnerEnd),
    aloneStopMs: median(samples.aloneStop),
  }
}
