// The plan file on disk: read and checked (inside the project only, a regular file only — a FIFO
// would never end), and the plugin's record of its stories written back into it atomically, in the
// shape it was read in.
import { isAbsolute, relative, resolve } from "node:path"
import { parsePlan, planProblem, type ParsedPlan } from "./plan-reader.js"
import type { PlanState } from "./plan.js"
import { writeBack } from "./write-back.js"
import { assertInside, writeFileAtomic } from "../files/atomic.js"
import { readRegularFile, readRegularFileSync, type FileText } from "../files/regular-file.js"

export type PlanFileRead =
  | { ok: true; file: string; plan: ParsedPlan; text: string }
  /** `problems`: what is wrong inside the file (none when it could not be read at all). */
  | {
      ok: false
      reason: "outside" | "missing" | "unreadable" | "broken"
      file: string
      message: string
      problems: string[]
      text?: string | undefined
    }

/** `path` relative to the project (or absolute), as the project-relative name used in messages. */
function locate(directory: string, path: string): { absolute: string; file: string } | undefined {
  const absolute = resolve(directory, path)
  const file = relative(directory, absolute)
  return file.startsWith("..") || isAbsolute(file) || file === "" ? undefined : { absolute, file }
}

function checked(file: string, content: FileText): PlanFileRead {
  if (!content.ok)
    return {
      ok: false,
      reason: content.reason === "missing" ? "missing" : "unreadable",
      file,
      message: `the plan file ${file} ${content.message}`,
      problems: [],
    }
  const text = content.text
  const read = parsePlan(text)
  return read.ok
    ? { ok: true, file, plan: read.plan, text }
    : { ok: false, reason: "broken", file, message: planProblem(file, read.problems), problems: read.problems, text }
}

const outside = (path: string): PlanFileRead => ({
  ok: false,
  reason: "outside",
  file: path,
  message: `the plan file ${path} is outside the project`,
  problems: [],
})

export async function readPlanFile(directory: string, path: string): Promise<PlanFileRead> {
  const where = locate(directory, path)
  if (!where) return outside(path)
  try {
    await assertInside(directory, where.absolute)
  } catch {
    return outside(where.file)
  }
  return checked(where.file, await readRegularFile(where.absolute, { follow: true }))
}

/** For /ralph-status, which answers at once. */
export function readPlanFileSync(directory: string, path: string): PlanFileRead {
  const where = locate(directory, path)
  if (!where) return outside(path)
  return checked(where.file, readRegularFileSync(where.absolute, { follow: true }))
}

/**
 * Writes the plugin's record of the stories into the plan file (only what differs). Returns the
 * ids whose fields changed, or the problem that kept it from writing.
 */
export async function writePlanBack(
  directory: string,
  plan: PlanState,
  options: { markCurrent?: boolean } = {},
): Promise<{ changed: string[] } | { problem: string }> {
  const where = locate(directory, plan.file)
  if (!where) return { problem: `the plan file ${plan.file} is outside the project` }
  const read = await readRegularFile(where.absolute, { follow: true })
  if (!read.ok) return { problem: `the plan file ${plan.file} ${read.message}` }
  const text = read.text
  const result = writeBack(text, plan, options)
  if ("problem" in result) return { problem: `the plan file ${plan.file} ${result.problem}` }
  if (result.text !== text) await writeFileAtomic(where.absolute, result.text, directory)
  return { changed: result.changed }
}
