// The sidebar panel (slot `sidebar_content`): the session's loop and the project's worktree loops,
// from the status document. Its text is one reactive string per part, so a change redraws the text
// in place (no node is made again); a countdown ticks once a second only while a wait is shown.
import type { TuiSlotContext } from "@opencode-ai/plugin/tui"
import { jsx } from "@opentui/solid/jsx-runtime"
import { createEffect, createMemo, createSignal, onCleanup, type Accessor } from "solid-js"
import type { StatusDocument } from "../status/document.js"
import { noteRedraw } from "./redraw-log.js"
import { sidebarLines } from "./texts.js"

export interface SessionView {
  /** The status document with the session's loop as `selected`, `own` when it is the session's. */
  doc: StatusDocument
  own: boolean
}

export function Sidebar(ctx: TuiSlotContext, view: Accessor<SessionView | undefined>) {
  const [now, setNow] = createSignal(Date.now())
  const loop = createMemo(() => {
    const v = view()
    return v?.own && v.doc.selected ? v.doc.selected : undefined
  })
  const worktrees = createMemo(
    () => view()?.doc.loops.filter((l) => l.worktree !== null && l.state !== "stopped") ?? [],
  )
  // A wait shows a countdown: a timer while it is on screen, none otherwise.
  createEffect(() => {
    const until = loop()?.wait?.until
    if (!until) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1_000)
    onCleanup(() => clearInterval(timer))
  })
  // One string: a read that changes nothing the panel says leaves its text alone.
  const text = createMemo(() => sidebarLines(loop(), worktrees(), now()).join("\n"))
  createEffect(() => noteRedraw(`sidebar ${text().length}`))
  const theme = ctx.theme.current
  return jsx("box", {
    flexDirection: "column",
    get visible() {
      return text().length > 0
    },
    children: [
      jsx("text", { fg: theme.text, children: jsx("b", { children: "Ralph loop" }) }),
      jsx("text", { fg: theme.textMuted, children: () => text() }),
    ],
  })
}
