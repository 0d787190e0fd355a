// The full-screen view of the project's loops (route "ralph-loops", opened by /ralph-loops): the
// loops, one line each, and the selected loop's detail, chart and iteration table, from the same
// watched read as the sidebar. Keys act on the selected loop through the same actions as the
// commands (the control channel); Esc goes back where the view was opened from.
import type { TuiPluginApi, TuiRouteCurrent } from "@opencode-ai/plugin/tui"
import { jsx } from "@opentui/solid/jsx-runtime"
import { createEffect, createMemo, createSignal, onCleanup, type Accessor } from "solid-js"
import { statusDocument } from "../status/document.js"
import type { ProjectLoops } from "../status/read-project.js"
import type { TuiActions } from "./actions.js"
import { noteRedraw } from "./redraw-log.js"
import { moveSelection, VIEW_KEYS, viewDetailLines, viewListLines } from "./texts.js"

export const VIEW_ROUTE = "ralph-loops"

/** Lines the view keeps for everything but the iteration table (title, keys, list, summary, chart). */
const FIXED_LINES = 24

export function registerLoopsView(
  api: TuiPluginApi,
  directory: string,
  loops: Accessor<ProjectLoops | undefined>,
  actions: TuiActions,
) {
  const [selected, setSelected] = createSignal<string | undefined>(undefined)
  let back: TuiRouteCurrent = { name: "home" }
  const ids = () => loops()?.loops.map((s) => s.loop.id) ?? []
  /** The selected loop, else the newest (the list's first). */
  const chosen = () => {
    const all = ids()
    const id = selected()
    return id !== undefined && all.includes(id) ? id : all[0]
  }

  const goBack = () => {
    if (back.name === "session" && typeof back.params?.sessionID === "string")
      api.route.navigate("session", { sessionID: back.params.sessionID })
    else api.route.navigate("home")
  }
  const act = (what: (loop: string) => Promise<void>) => {
    const loop = chosen()
    if (!loop) return
    what(loop).catch((error: unknown) =>
      api.ui.toast({
        variant: "error",
        title: "Ralph loop",
        message: error instanceof Error ? error.message : String(error),
      }),
    )
  }

  api.route.register([
    {
      name: VIEW_ROUTE,
      render: () => LoopsView(api, directory, loops, chosen),
    },
  ])
  // One layer for the view's keys, on only while the view shows and no dialog is over it (a layer
  // registered by the view itself would be removed by Esc while Esc is dispatched).
  api.keymap.registerLayer({
    priority: 100,
    enabled: () => api.route.current.name === VIEW_ROUTE && !api.ui.dialog.open,
    bindings: [
      {
        key: "up",
        cmd: () =>
          void setSelected(
            moveSelection(
              ids().map((id) => ({ id })),
              chosen(),
              -1,
            ),
          ),
      },
      {
        key: "down",
        cmd: () =>
          void setSelected(
            moveSelection(
              ids().map((id) => ({ id })),
              chosen(),
              1,
            ),
          ),
      },
      { key: "p", cmd: () => act((loop) => actions.send({ verb: "pause" }, loop)) },
      { key: "r", cmd: () => act((loop) => actions.send({ verb: "resume" }, loop)) },
      { key: "c", cmd: () => act((loop) => actions.send({ verb: "cancel" }, loop)) },
      { key: "b", cmd: () => act((loop) => actions.rollback(loop)) },
      { key: "escape", cmd: goBack },
    ],
  })

  return {
    /** Opens the view, the loop of `sessionLoop` selected when there is one; Esc comes back here. */
    open(sessionLoop: string | undefined) {
      const here = api.route.current
      if (here.name !== VIEW_ROUTE) back = here
      if (sessionLoop) setSelected(sessionLoop)
      api.route.navigate(VIEW_ROUTE)
    },
  }
}

function LoopsView(
  api: TuiPluginApi,
  directory: string,
  loops: Accessor<ProjectLoops | undefined>,
  chosen: () => string | undefined,
) {
  const [now, setNow] = createSignal(Date.now())
  const doc = createMemo(() => {
    const current = loops()
    return current ? statusDocument(directory, current.loops, current.history, chosen(), now()) : undefined
  })
  // A waiting loop's countdown ticks once a second while one is on screen; no timer otherwise.
  createEffect(() => {
    if (!doc()?.loops.some((l) => l.wait)) return
    const timer = setInterval(() => setNow(Date.now()), 1_000)
    onCleanup(() => clearInterval(timer))
  })
  const maxRows = Math.max(3, api.renderer.height - FIXED_LINES - (loops()?.loops.length ?? 0))
  const list = createMemo(() => {
    const d = doc()
    return d ? viewListLines(d.loops, d.selected?.id, now()).join("\n") : "Reading the loops…"
  })
  const detail = createMemo(() => {
    const selected = doc()?.selected
    return selected ? viewDetailLines(selected, maxRows).join("\n") : ""
  })
  createEffect(() => {
    list()
    detail()
    noteRedraw("view")
  })
  const theme = api.theme.current
  return jsx("box", {
    flexDirection: "column",
    paddingLeft: 2,
    paddingRight: 2,
    paddingTop: 1,
    width: "100%",
    height: "100%",
    children: [
      jsx("text", { fg: theme.text, children: jsx("b", { children: `Ralph loops · ${directory}` }) }),
      jsx("text", { fg: theme.textMuted, children: VIEW_KEYS }),
      jsx("text", { fg: theme.text, marginTop: 1, children: () => list() }),
      jsx("text", { fg: theme.text, marginTop: 1, children: () => detail() }),
    ],
  })
}
