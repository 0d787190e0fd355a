// "Files changed since the loop began" as a loop's record lists it (the progress entry, the handoff,
// the report, the memory's relevance): the loop's work, never the plugin's own writes. The plugin's
// folders (`.opencode/`, summaryPath: ownFolders) are left out by path. The plan file is the one file
// outside them the plugin writes (its record of the stories: the write-back), so it is left out when
// that is its only change: the file as it was when the loop began, with the plugin's record written
// into it (writeBack, as the loop writes it), is the file now. Any other change to it (a story the
// model added, a criterion it reworded, a story it marked done that the plugin did not) lists it.
// When that cannot be told (a loop saved without the start's tree, a git or read failure), it is listed.
import { join, sep } from "node:path"
import { git } from "../git/run.js"
import { loopStart } from "../loop/changed-files.js"
import type { Loop } from "../loop/loop.js"
import type { PlanState } from "../plan/plan.js"
import { writeBack } from "../plan/write-back.js"
import { ownFolders } from "../project/own-files.js"
import { readRegularFile } from "../files/regular-file.js"
import { filesChangedSinceStart } from "./work-tree.js"

type LoopRecord = Pick<Loop, "startHead" | "startTree" | "startFiles" | "plan" | "settings">

/** The files the loop changed since it began, its own writes aside (see above); a git failure throws. */
export async function loopChangedFiles(
  directory: string,
  loop: LoopRecord,
): Promise<Array<{ code: string; path: string }>> {
  const files = await filesChangedSinceStart(directory, loopStart(loop), ownFolders(loop))
  const plan = loop.plan
  // A --story loop leaves the plan file as it is: a change there is the model's.
  if (!plan || plan.only !== undefined || loop.startTree === undefined) return files
  const planPath = plan.file.split(sep).join("/")
  if (!files.some((f) => f.path === planPath)) return files
  return (await onlyWrittenBack(directory, loop.startTree, plan)) ? files.filter((f) => f.path !== planPath) : files
}

/** Whether the plan file now is its content at the start (in `startTree`) with the plugin's record written back. */
async function onlyWrittenBack(directory: string, startTree: string, plan: PlanState): Promise<boolean> {
  // `<tree>:./path`: the path from the project, wherever it is in the repository.
  const start = await git(directory, ["cat-file", "blob", `${startTree}:./${plan.file.split(sep).join("/")}`])
  if (!start.ok) return false
  const now = await readRegularFile(join(directory, plan.file), { follow: true })
  if (!now.ok) return false
  const written = writeBack(start.stdout, plan)
  return !("problem" in written) && written.text === now.text
}
