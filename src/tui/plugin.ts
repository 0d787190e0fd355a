// The TUI half: zero-turn commands (they run here, in the TUI; none reaches the model), the sidebar
// panel and the full-screen view, all from the loops' files as the status document reads them.
import type { TuiPlugin, TuiPluginApi } from "@opencode-ai/plugin/tui"
import { createComponent, createMemo, createSignal } from "solid-js"
import { helpText } from "../commands/help-text.js"
import { claimInstance, deferredText } from "../host/instance-claim.js"
import { statusDocument } from "../status/document.js"
import { readProjectLoops, type ProjectLoops } from "../status/read-project.js"
import { TuiActions } from "./actions.js"
import { watchProjectLoops } from "./project-loops.js"
import type { TuiCommandName } from "../host/tui-commands.js"
import { Sidebar, type SessionView } from "./sidebar.js"
import { fromFilesText, sessionLoop, statusDialogText, TUI_HELP } from "./texts.js"
import { registerLoopsView } from "./view.js"

/** The session the TUI shows, if any. */
function currentSession(api: TuiPluginApi): string | undefined {
  const route = api.route.current
  const id = route.name === "session" && route.params ? route.params.sessionID : undefined
  return typeof id === "string" ? id : undefined
}

/** The status document for `sessionID`: its loop selected when it has one, else the newest. */
function sessionView(
  directory: string,
  loops: ProjectLoops,
  sessionID: string | undefined,
  now = Date.now(),
): SessionView {
  const own = sessionLoop(loops.loops, sessionID)
  return { doc: statusDocument(directory, loops.loops, loops.history, own?.loop.id, now), own: own !== undefined }
}

/**
 * A command of the palette and its slash name. The server leaves commands of these names to this half in
 * the TUI process (src/listings/tui-half.ts). A failure is a toast.
 */
function paletteCommand(api: TuiPluginApi, slashName: TuiCommandName, title: string, run: () => void | Promise<void>) {
  return {
    namespace: "palette",
    name: `ralph-loop.${slashName}`,
    title,
    desc: `${title} (no model turn)`,
    category: "Ralph loop",
    slashName,
    run: async () => {
      try {
        await run()
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        api.ui.toast({ variant: "error", title: "Ralph loop", message })
      }
    },
  }
}

export const tui: TuiPlugin = async (api) => {
  const directory = api.state.path.directory
  // Listed twice: the first copy's commands and panel are the ones shown; this copy registers nothing.
  const claim = claimInstance("tui", directory)
  if (!claim.owner) {
    const message = deferredText("tui", directory, claim.holder)
    void Promise.resolve()
      .then(() => api.client.app.log({ service: "ralph-loop", level: "warn", message }))
      .catch(() => undefined)
    return
  }
  api.lifecycle.onDispose(() => claim.release())
  const [loops, setLoops] = createSignal<ProjectLoops | undefined>(undefined, { equals: false })
  const watcher = watchProjectLoops(directory, setLoops)
  api.lifecycle.onDispose(() => watcher.close())

  // The session's loop, read now (a command wants the files as they are).
  const loopOfSession = async () => sessionLoop((await readProjectLoops(directory)).loops, currentSession(api))?.loop.id
  const actions = new TuiActions(api, directory, loopOfSession)
  const view = registerLoopsView(api, directory, loops, actions)

  const alert = (title: string, message: string) =>
    api.ui.dialog.replace(() =>
      createComponent(api.ui.DialogAlert, { title, message, onConfirm: () => api.ui.dialog.clear() }),
    )

  const command = (slashName: TuiCommandName, title: string, run: () => void | Promise<void>) =>
    paletteCommand(api, slashName, title, run)

  api.keymap.registerLayer({
    commands: [
      command("ralph-status", "Ralph loop status", async () => {
        // The server plugin's own /ralph-status text; without its answer, the shorter one from the files (read now).
        const session = currentSession(api)
        const server = await actions.serverStatus(session)
        if (server.ok) alert(server.title, server.message)
        else {
          const view = sessionView(directory, await readProjectLoops(directory), session)
          alert("Ralph loop", fromFilesText(statusDialogText(view.doc, view.own), server.why))
        }
        // Its lines are long (the budgets, the breaker): wide enough not to wrap them.
        api.ui.dialog.setSize("large")
      }),
      command("ralph-pause", "Pause the Ralph loop", () => actions.send({ verb: "pause" })),
      command("ralph-resume", "Resume the Ralph loop", () => actions.send({ verb: "resume" })),
      command("cancel-ralph", "Cancel the Ralph loop", () => actions.send({ verb: "cancel" })),
      command("ralph-rollback", "Roll the Ralph loop back to a checkpoint", () => actions.rollback()),
      command("ralph-accept", "Accept what refused the Ralph loop's claim of done", () => actions.accept()),
      command("ralph-hint", "Hint for the Ralph loop's next prompt", () =>
        actions.ask("Hint for the next prompt (once)", "what the model should know", "hint"),
      ),
      command("ralph-remember", "Remember a lesson for every Ralph loop", () =>
        actions.ask("Remember for every loop of this project", "the lesson", "remember"),
      ),
      command("ralph-memory", "Show the Ralph loop's project memory", () => actions.memory()),
      command("ralph-loops", "All the project's Ralph loops (full screen)", async () =>
        view.open(await loopOfSession()),
      ),
      command("ralph-help", "How to use the Ralph loop", () => {
        alert("Ralph loop · help", `${TUI_HELP}\n\n${helpText()}`)
        api.ui.dialog.setSize("large")
      }),
    ],
  })

  api.slots.register({
    order: 50,
    slots: {
      sidebar_content(ctx, props) {
        const view = createMemo(() => {
          const current = loops()
          return current ? sessionView(directory, current, props.session_id) : undefined
        })
        return Sidebar(ctx, view)
      },
    },
  })
}
