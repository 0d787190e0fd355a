// The projects and scripted models of the replay's e2e tests (issue 46): a JS project with vitest
// linked from this package, a model that writes each step's files and then claims done, a loop run
// to its completion, and the loop `ralph-loop status --json` selects.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import { packageDir, type Project } from "../harness/harness.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { ralphCli, waitForLoopEnd } from "./helpers.js"

export const isControl = (r: MockRequest) => r.lastUser.startsWith("[ralph-loop control]")
export const prompts = (project: Project) =>
  project.requests("main").filter((r) => r.lastRole === "user" && !isControl(r))
export const write = (filePath: string, content: string) => ({ name: "write", args: { filePath, content } })

/** Each prompt gets `steps[i]` (its writes; none: it claims again as it is), then the promise. */
export function scripted(project: () => Project, steps: Array<Array<ReturnType<typeof write>>>) {
  return (r: MockRequest): Reply => {
    if (isControl(r)) return { text: "OK" }
    if (r.lastRole === "tool") return { text: "Done: the tests pass. <promise>DONE</promise>" }
    const step = steps[Math.min(prompts(project()).length - 1, steps.length - 1)] ?? []
    return step.length > 0 ? { toolCalls: step } : { text: "It is done as asked. <promise>DONE</promise>" }
  }
}

/** A JS project: package.json, its files, vitest linked from this package. */
export function jsProject(
  project: Pick<Project, "dir">,
  scripts: Record<string, string>,
  files: Record<string, string>,
): void {
  const pkg = { name: "replayed", private: true, type: "module", scripts }
  writeFileSync(join(project.dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`)
  writeFileSync(join(project.dir, ".gitignore"), "node_modules/\n")
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(project.dir, path, ".."), { recursive: true })
    writeFileSync(join(project.dir, path), text)
  }
  mkdirSync(join(project.dir, "node_modules", ".bin"), { recursive: true })
  symlinkSync(join(packageDir(), "node_modules", "vitest"), join(project.dir, "node_modules", "vitest"))
  symlinkSync(
    join(packageDir(), "node_modules", "vitest", "vitest.mjs"),
    join(project.dir, "node_modules", ".bin", "vitest"),
  )
}

export interface Selected {
  iteration: number
  guard:
    | {
        replay?: Record<string, unknown>
        acceptable: string[]
        accepted: Array<{ key: string; via: string }>
        refusedAccepts: Array<{ via: string; why: string }>
      }
    | undefined
  evidence: { verified: boolean; replay?: Record<string, unknown>; acceptedByYou?: Array<{ key: string; via: string }> }
}

export async function selected(project: Project): Promise<Selected> {
  const status = await ralphCli(project.dir, ["status", "--json"])
  return (JSON.parse(status.stdout) as { selected: Selected }).selected
}

export async function runLoop(project: Project, task: string, iterations: number) {
  const session = await project.newSession()
  await project.command(session, "ralph", task)
  const [loop] = await waitForLoopEnd(project, { phase: "stopped", stopReason: "completed" }, 1, 120_000)
  expect(loop).toMatchObject({ iteration: iterations })
  return prompts(project).map((r) => r.lastUser)
}
