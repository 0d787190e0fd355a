// Production's handlers of the effects on the project's work tree (src/engine/effects-work-tree.ts, and the
// guard's read: src/changes/effects.ts).
import type { Handlers } from "../../effects/kernel.js"
import { ownFolders, type Loop } from "../../loop/loop.js"
import { inTargets } from "../../loop/targets.js"
import { openTodos } from "../../loop/todos.js"
import { OPENCODE_DIR } from "../../project/own-files.js"
import { commitLoopWork } from "../../changes/auto-commit.js"
import { loopChangedFiles } from "../../changes/loop-changes.js"
import { readGuardInput } from "../../changes/guard-read.js"
import { commitStoryBranch } from "../../worktrees/story-commit.js"
import { sampleWorkTree, snapshotWorkTree } from "../../changes/work-tree.js"
import type { HandlerContext } from "./context.js"
import { runReplay } from "../../replay/replay-run.js"
import { prepareReplayRead, takePreparedRead } from "../../replay/prepared-reads.js"
import { checksFor } from "../../plan/plan.js"
import { HOST, usHere } from "../../owner/heartbeat-files.js"
import { ownerLiveness } from "../../owner/liveness.js"

/** Progress facts: the work tree and the session's completed todos. */
async function sample(ctx: HandlerContext, loop: Loop) {
  const ignore = ownFolders(loop)
  const prefix = await ctx.repositoryPrefix()
  const [workTree, todos] = await Promise.all([
    prefix === undefined ? undefined : sampleWorkTree(ctx.directory, prefix, ignore, loop.targets),
    ctx.api.todos(loop.sessionID).catch(() => []),
  ])
  return {
    workTree,
    todosCompleted: todos.filter((t) => t.status === "completed").length,
    openTodos: openTodos(todos),
    sessionID: loop.sessionID,
  }
}

/** The project's work tree, its own .opencode/ folder left out (auto-continue's "did the turn change files"). */
async function fingerprint(ctx: HandlerContext): Promise<string | undefined> {
  const prefix = await ctx.repositoryPrefix()
  return prefix === undefined ? undefined : sampleWorkTree(ctx.directory, prefix, [`${OPENCODE_DIR}/`])
}

/** What the replay of `loop`'s claim at `at` reads (its checks' commands: the files they call are surface). */
const replayReadOf = (directory: string, loop: Loop, at: string | undefined) => ({
  directory,
  loopID: loop.id,
  at,
  commands: checksFor(loop.settings, loop.plan).map((c) => c.command),
})

export function workTreeHandlers(ctx: HandlerContext) {
  const { directory } = ctx
  return {
    sample: (effect) => sample(ctx, effect.loop),
    "guard-read": (effect) => readGuardInput(directory, effect.loop.id, effect.at),
    "replay-prepare": (effect) => prepareReplayRead(replayReadOf(directory, effect.loop, effect.at)),
    replay: (effect) =>
      runReplay({
        directory,
        loopID: effect.loop.id,
        at: effect.at,
        checks: checksFor(effect.loop.settings, effect.loop.plan),
        // The reads started beside the checks (replay-prepare), when they are of this claim.
        read: takePreparedRead(replayReadOf(directory, effect.loop, effect.at)),
        keep: effect.keep ?? [],
        groups: ctx.checkGroups,
        // A replay tree is named by the pid of the process that made it, on this host: the one rule judges it.
        alive: (pid) => ownerLiveness({ pid, host: HOST }, undefined, usHere(Date.now())).alive,
        treeMade: () => ctx.reached("replay.running"),
      }),
    "changed-files": (effect) =>
      loopChangedFiles(directory, effect.loop).then(
        (files) => files.map((f) => f.path).filter((path) => inTargets(path, effect.loop.targets)),
        () => [],
      ),
    "work-tree": () =>
      snapshotWorkTree(directory).catch((error: unknown) => ({
        unknown: error instanceof Error ? error.message : String(error),
      })),
    fingerprint: () => fingerprint(ctx),
    "commit-story": (effect) => commitLoopWork(directory, effect.loop, ownFolders(effect.loop), effect.message),
    "story-branch": (effect) =>
      commitStoryBranch(
        directory,
        effect.loop,
        ownFolders(effect.loop),
        effect.loop.plan?.file ?? "",
        effect.branch,
        effect.message,
      ),
  } satisfies Partial<Handlers>
}
