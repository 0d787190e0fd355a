// `ralph-loop checkpoints [--project DIR] [LOOP]`: each loop's checkpoints (or LOOP's, by its id or
// the start of it) — number, the iteration it holds, when, the files it changed from the one before,
// and what the checks found then — from git's refs and the loop's state file.
import { join } from "node:path"
import { changedBetween, listCheckpoints, loopsWithCheckpoints } from "../checkpoints/checkpoint-git.js"
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"
import { STATE_DIR } from "../project/own-files.js"
import { readLoopFiles } from "../store/saved-loops.js"
import type { CliArgs } from "./args.js"

const checksThen = (snapshot: DiagnosticSnapshot | undefined) =>
  snapshot
    ? `${snapshot.errors} errors, ${snapshot.warnings} warnings, ${snapshot.testsFailed}/${snapshot.testsRun} ` +
      `tests failing`
    : "checks not run"

export async function checkpoints(args: CliArgs, out: (line: string) => void): Promise<number> {
  const ids = (await loopsWithCheckpoints(args.project)).filter((id) => !args.loop || id.startsWith(args.loop))
  if (ids.length === 0) {
    out(
      args.loop
        ? `ralph-loop checkpoints: no loop ${args.loop} with checkpoints in ${args.project}`
        : `ralph-loop checkpoints: no loop in ${args.project} has checkpoints`,
    )
    return args.loop ? 1 : 0
  }
  const { loops: saved } = await readLoopFiles(join(args.project, STATE_DIR, "loops"))
  for (const id of ids) {
    const loop = saved.find((s) => s.loop.id === id)?.loop
    const list = await listCheckpoints(args.project, id)
    const ended = loop?.stopReason ? `: ${loop.stopReason}` : ""
    out(`${id}${loop ? ` — ${loop.task.split("\n")[0]?.slice(0, 60)} (${loop.phase}${ended})` : ""}`)
    let previous: string | undefined
    for (const c of list) {
      const files = previous ? (await changedBetween(args.project, previous, c.commit)).length : undefined
      const snapshot = c.iteration === undefined ? undefined : loop?.snapshots.find((s) => s.iteration === c.iteration)
      const what =
        c.iteration === undefined
          ? "saved before a rollback"
          : c.iteration === 0
            ? "before the loop"
            : `iteration ${c.iteration}`
      out(
        (
          `  ${String(c.number).padStart(3)}  ${new Date(c.at).toISOString()}  ${what.padEnd(24)}  ` +
          `${files === undefined ? "" : `${files} file${files === 1 ? "" : "s"} changed · `}` +
          `${c.iteration ? checksThen(snapshot) : ""}`
        ).trimEnd(),
      )
      previous = c.commit
    }
  }
  out("/ralph-rollback N in the loop's session puts the work tree back to checkpoint N.")
  return 0
}
