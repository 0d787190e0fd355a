// One ralph-loop per OpenCode instance (project directory): settings, the loop manager, the action
// runner and the store, wired into the hooks — each wrapped so nothing ever throws into OpenCode.
// Loaded in the background by plugin.ts, so OpenCode's start does not wait for it.
import { randomUUID } from "node:crypto"
import type { Hooks, PluginInput, PluginOptions } from "@opencode-ai/plugin"
import { Interpreter } from "./engine/interpreter.js"
import { LoopRunner } from "./engine/runner.js"
import { LiveSettings } from "./config/live-settings.js"
import { ContinuationWatch } from "./continuations/watch.js"
import { globalConfigDir } from "./config/load.js"
import type { RalphContext } from "./engine/context.js"
import { ControlTurns } from "./engine/control-turns.js"
import { chatMessageHook } from "./hooks/chat-message.js"
import { chatParamsHook } from "./hooks/chat-params.js"
import { compactionAutocontinueHook } from "./hooks/compaction-autocontinue.js"
import { compactingHook } from "./hooks/compacting.js"
import { commandHook } from "./hooks/command-execute.js"
import { eventHook } from "./hooks/event.js"
import { messagesTransformHook } from "./hooks/messages-transform.js"
import { systemTransformHook } from "./hooks/system-transform.js"
import { textCompleteHook } from "./hooks/text-complete.js"
import { modelToolHooks, RefusedByRalph } from "./hooks/tool-guard.js"
import { toolCall } from "./hooks/tool-calls.js"
import { toolDefinitions } from "./hooks/tools.js"
import { LoopManager } from "./loop/manager.js"
import { MemoryStore } from "./memory/memory-store.js"
import { PlanRequests } from "./plan/requests.js"
import type { Host } from "./host/port.js"
import { writeEndReports } from "./status/end-reports.js"
import { OpencodeHost } from "./opencode/api.js"
import { Faults } from "./host/faults.js"
import { LoopStore } from "./store/loop-store.js"
import { readDecidedLines } from "./store/journal-history.js"
import { histories, historyOf } from "./status/history.js"
import { WorktreeWatch } from "./worktrees/worktree-watch.js"
import { ParallelPlan } from "./worktrees/parallel-plan.js"
import { readWorktreeState } from "./worktrees/worktree-file.js"
import { sharedFilesFolder } from "./worktrees/shared-files.js"
import { redacted } from "./files/redact.js"
import { ControlChannel, type ControlLog } from "./control/channel.js"
import { sendControl } from "./control/client.js"
import { controlAct } from "./control/serve.js"
import { controlRoute } from "./control/route-instance.js"
import { stoppedTakers } from "./control/route-facts.js"
import { ProjectBeat } from "./owner/project-beat.js"
import { heldByAnother } from "./owner/project-lease.js"
import { HOST } from "./owner/heartbeat-files.js"
import { JOURNAL_LIMITS } from "./store/journal.js"

/**
 * The loops that were active are taken back from disk before the hooks act on anything (a command
 * or an event that comes while this loads waits for it), so /cancel-ralph and the user's messages
 * always find them; they go on a moment later (LoopRunner.recoverAll).
 */
export async function createInstance(
  input: PluginInput,
  options: PluginOptions | undefined,
  disposed?: AbortSignal,
): Promise<Hooks> {
  const faults = Faults.load(input.directory)
  const worktree = readWorktreeState(input.directory)
  const api = new OpencodeHost(input.client, process.env.RALPH_LOOP_DEBUG === "1", faults, worktree?.mainDirectory)
  // A worktree's loops share the project's memory and progress log.
  const shared = await sharedFilesFolder(input.directory, worktree)
  if (shared.problem) api.log("warn", shared.problem)
  const launcher = { pid: process.pid, boot: randomUUID() }
  // The project's lease: project-wide work runs where it is; a worktree's instance has none (its folder may go).
  const beat: ProjectBeat | undefined = worktree
    ? undefined
    : projectBeat(input.directory, { ...launcher, host: HOST }, api, () => ctx)
  const parallel: ParallelPlan = new ParallelPlan(() => ctx)
  const worktrees: WorktreeWatch = new WorktreeWatch(
    () => ctx,
    undefined,
    () => beat?.holds() ?? true,
  )
  const store = new LoopStore(input.directory, faults, JOURNAL_LIMITS, launcher.boot)
  const manager = new LoopManager((loop, event) => {
    store
      .save(loop, event, Date.now())
      .catch((error: unknown) => api.log("error", `could not save loop state: ${String(error)}`, { loop: loop.id }))
    if (event.startsWith("stopped:")) void writeEndReports(input.directory, loop, api, store.settled(loop.id))
    runner.loopChanged(loop, event)
    // What the plugin holds in memory, at each decision and stop (RALPH_LOOP_DEBUG=1 only): the soak reads it.
    if (event === "decided" || event.startsWith("stopped:")) {
      const held = { loops: manager.size, timers: interpreter.timerCount, ...store.held() }
      api.log("debug", "ralph-loop gauges", { loop: loop.id, event, ...held, newSessions: ctx.newSessions.size })
    }
  })
  const settings = new LiveSettings({ directory: input.directory, globalDir: globalConfigDir(), options }, api)
  const memory = new MemoryStore(shared.directory, (message) => memoryMovedAside(api, message))
  const interpreter = new Interpreter({
    directory: input.directory,
    sharedDirectory: shared.directory,
    api,
    store,
    memory,
    faults,
    onWake: (loop) => runner.wake(loop),
    cancelLoopIn,
  })
  const plans = new PlanRequests()
  const continuations = new ContinuationWatch()
  const runner = new LoopRunner(interpreter, {
    directory: input.directory,
    manager,
    plans,
    continuations,
    now: Date.now,
    settings: () => settings.fresh(),
  })
  const ctx: RalphContext = {
    directory: input.directory,
    api,
    manager,
    plans,
    runner,
    settings,
    memory,
    continuations,
    newSessions: new Set(),
    controlTurns: new ControlTurns(),
    savedLoops: (limit) => store.newest(limit),
    loopHistory: historyReader(store),
    worktrees,
    launcher,
    worktree: () => readWorktreeState(input.directory),
    parallel,
    now: Date.now,
  }
  return startInstance(ctx, store, beat, disposed)
}

/** Cancels the loop running in another directory (a slot's) through its control channel: what it answered. */
const cancelLoopIn = (directory: string, via: string): Promise<string> =>
  sendControl(directory, { verb: "cancel", from: via.slice(0, 80) }).then((answer) => answer.message)

/** The loops taken back from disk and gone on with, the lease and the control channel started: the hooks. */
async function startInstance(
  ctx: RalphContext,
  store: LoopStore,
  beat: ProjectBeat | undefined,
  disposed: AbortSignal | undefined,
): Promise<Hooks> {
  const { api, manager, runner, settings, worktrees } = ctx
  // A live lease holder takes back the loops whose owner is gone (at its next beat); else this instance does, now.
  const me = { ...ctx.launcher, host: HOST }
  const found = await loadLoops(store, api, beat ? await heldByAnother(ctx.directory, me, Date.now()) : false)
  // OpenCode disposed the instance while this loaded: nothing starts (the next instance recovers).
  if (disposed?.aborted) return {}
  runner.recoverAll(manager.adoptAll(found.loops, settings.current.resumeOnStart === "ask"), found)
  // Worktree loops started from here: woken after a restart of OpenCode, merged back when they end —
  // by the lease holder (ProjectBeat's `gained`).
  beat?.start()
  // The channel takes requests once the first beat wrote this instance's presence file: a request it
  // took without one, the lease holder would answer "interrupted" while this acts on it.
  await beat?.holdsNow()
  const control = startControl(ctx, beat)
  // Once per OpenCode instance of a directory: a parallel run's slots are counted by it (issue 40).
  api.log("info", "ralph-loop instance started", {
    directory: ctx.directory,
    worktree: ctx.worktree()?.name ?? null,
    settings: redacted(settings.current),
  })

  return pluginHooks(ctx, async () => {
    control.dispose()
    worktrees.dispose()
    ctx.runner.dispose()
    await store.flush()
    // The presence file stays until the requests taken are answered (the same reason), or a while.
    await settledOrLate(control)
    await beat?.dispose()
  })
}

/**
 * The instance's heartbeat and the project's lease: while it holds it, the worktree loops are watched,
 * the parallel runs reconciled and orphaned loops taken back (each asked for when it beats, not now).
 */
function projectBeat(
  directory: string,
  holder: ConstructorParameters<typeof ProjectBeat>[1],
  api: Host,
  instance: () => RalphContext,
): ProjectBeat {
  return new ProjectBeat(directory, holder, {
    gained: () => {
      instance().worktrees.start()
      void instance().parallel.reconcile()
      instance().runner.takeBack()
    },
    // A worktree loop another process launched is settled here; a loop whose OpenCode stopped is taken back.
    holding: () => {
      instance().worktrees.start()
      instance().runner.takeBack()
    },
    log: (level, message, extra) => api.log(level, message, extra),
  })
}

/** A loop's decided iterations as the journal has them (none when it cannot be read). */
function historyReader(store: LoopStore): RalphContext["loopHistory"] {
  return (loop) =>
    store
      .flush()
      .then(() => readDecidedLines(store.dir))
      .then(
        (entries) => historyOf(histories(entries), loop),
        () => [],
      )
}

/** The loops' saved state; none when it cannot be read (said in the log). */
function loadLoops(store: LoopStore, api: Host, leaveOrphans: boolean) {
  return store.load(Date.now(), leaveOrphans).catch((error: unknown) => {
    api.log("error", `could not read the loops' state: ${String(error)}`)
    return { loops: [], problems: [], owned: [] }
  })
}

function memoryMovedAside(api: Host, message: string): void {
  api.log("warn", message)
  api.toast("warning", "Ralph · memory file moved aside", message)
}

/** How long a disposed instance waits for its control requests' answers before its presence file goes. */
const CONTROL_SETTLE_MS = 5_000

async function settledOrLate(control: ControlChannel): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CONTROL_SETTLE_MS)
  })
  await Promise.race([control.settled(), late])
  clearTimeout(timer)
}

/**
 * Requests of the TUI, the `ralph-loop` command or a runner, once the loops are taken back (src/control/):
 * this instance's loops' and, if it holds the lease, the project's.
 */
function startControl(ctx: RalphContext, beat: ProjectBeat | undefined): ControlChannel {
  const { directory, api, launcher } = ctx
  const holds = async () => (beat ? beat.holdsNow() : true)
  const orphans = async () =>
    (await beat?.holdsNow()) ? stoppedTakers(directory, Date.now(), launcher.boot) : undefined
  const log: ControlLog = (level, message, extra) => api.log(level, message, extra)
  const control = new ControlChannel(directory, controlAct(ctx), log, Date.now, undefined, {
    route: controlRoute(ctx, holds),
    taker: launcher.boot,
    ...(beat ? { orphans } : {}),
  })
  control.start()
  return control
}

/** The plugin's hooks, each guarded, and `dispose` (what the instance stops when OpenCode disposes it). */
function pluginHooks(ctx: RalphContext, dispose: () => Promise<void>): Hooks {
  const hooks: Hooks = {
    "command.execute.before": commandHook(ctx),
    "chat.message": chatMessageHook(ctx),
    "experimental.chat.system.transform": systemTransformHook(ctx),
    "experimental.chat.messages.transform": messagesTransformHook(ctx),
    "chat.params": chatParamsHook(ctx),
    "experimental.text.complete": textCompleteHook(ctx),
    "experimental.compaction.autocontinue": compactionAutocontinueHook(ctx),
    ...modelToolHooks(ctx),
    "experimental.session.compacting": compactingHook(ctx),
    tool: toolDefinitions(toolCall(ctx)),
    dispose,
  }
  // The event hook guards itself: a wrapper would cost two promises per event.
  return { ...guard(hooks, ctx.api), event: eventHook(ctx) }
}

/**
 * Every hook catches and logs its own errors: a throw would abort the user's operation. The one
 * deliberate throw is a refused tool call, which OpenCode reports to the model.
 */
function guard(hooks: Hooks, api: Host): Hooks {
  const guarded: Record<string, unknown> = {}
  for (const [name, hook] of Object.entries(hooks)) {
    guarded[name] =
      typeof hook === "function"
        ? async (...args: unknown[]) => {
            try {
              await (hook as (...a: unknown[]) => Promise<void>)(...args)
            } catch (error) {
              if (error instanceof RefusedByRalph) throw error
              api.log(
                "error",
                `hook ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
              )
            }
          }
        : hook
  }
  return guarded as Hooks
}
