// The TUI half: zero-turn commands (they run here, in the TUI; none reaches the model), the sidebar
// panel and the full-screen view, all from the loops' files as the status document reads them.
import type { TuiPlugin, TuiPluginApi } from "@opencode-ai/plugin/tui"
import { createComponent, createMemo, createSignal } from "solid-js"
import { statusDocument } from "../status/document.js"
import { readProjectLoops, type ProjectLoops } from "../status/read-project.js"
import { watchProjectLoops } from "./project-loops.js"
import { Sidebar, type SessionView } from "./sidebar.js"
import { sessionLoop, statusDialogText } from "./texts.js"

/** The session the TUI shows, if any. */
export function currentSession(api: TuiPluginApi): string | undefined {
  const route = api.route.current
  const id = route.name === "session" && route.params ? route.params.sessionID : undefined
  return typeof id === "string" ? id : undefined
}

/** The status document for `sessionID`: its loop selected when it has one, else the newest. */
export function sessionView(directory: string, loops: ProjectLoops, sessionID: string | undefined, now = Date.now()): SessionView {
  const own = sessionLoop(loops.loops, sessionID)
  return { doc: statusDocument(directory, loops.loops, loops.history, own?.loop.id, now), own: own !== undefined }
}

export const tui: TuiPlugin = async (api) => {
  const directory = api.state.path.directory
  const [loops, setLoops] = createSignal<ProjectLoops | undefined>(undefined, { equals: false })
  const watcher = watchProjectLoops(directory, setLoops)
  api.lifecycle.onDispose(() => watcher.close())

  const alert = (title: string, message: string) =>
    api.ui.dialog.replace(() => createComponent(api.ui.DialogAlert, { title, message, onConfirm: () => api.ui.dialog.clear() }))

  // The description names the slash command too: OpenCode ranks an entry matching in two fields
  // above the server's command of the same name, so Enter runs this one (docs/opencode-notes.md).
  const command = (slashName: string, title: string, run: () => void | Promise<void>) => ({
    namespace: "palette",
    name: `ralph-loop.${slashName}`,
    title,
    desc: `/${slashName} — ${title} (no model turn)`,
    category: "Ralph loop",
    slashName,
    run: async () => {
      try {
        await run()
      } catch (error) {
        api.ui.toast({ variant: "error", title: "Ralph loop", message: error instanceof Error ? error.message : String(error) })
      }
    },
  })

  api.keymap.registerLayer({
    commands: [
      command("ralph-status", "Ralph loop status", async () => {
        // Read now, not the last watched read: the answer is wanted as the files are.
        const view = sessionView(directory, await readProjectLoops(directory), currentSession(api))
        alert("Ralph loop", statusDialogText(view.doc, view.own))
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
