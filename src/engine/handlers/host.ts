// Production's handlers of the calls to OpenCode (src/engine/effects-host.ts, and the continuations'
// prompt: src/continuations/effects.ts).
import type { Handlers } from "../../effects/kernel.js"
import type { HandlerContext } from "./context.js"

// Only the host and whether the instance is live: the fuzz simulator (test/fuzz/sim.ts) runs these
// same handlers against its simulated OpenCode (test/fuzz/sim-host.ts).
export function hostHandlers(ctx: Pick<HandlerContext, "api" | "assertLive">) {
  const { api } = ctx
  return {
    messages: (effect) => api.readMessages(effect.sessionID),
    sessions: () => api.listSessions(),
    "session-exists": (effect) => api.sessionExists(effect.sessionID),
    session: (effect) => api.sessionInfo(effect.sessionID),
    todos: (effect) => api.todos(effect.sessionID),
    "is-idle": (effect) => api.isIdle(effect.sessionID),
    summarize: (effect) => api.compact(effect.sessionID, effect.model),
    "create-session": (effect) => api.createSession(effect.title),
    "select-session": (effect) => api.selectSession(effect.sessionID),
    prompt: (effect) => {
      ctx.assertLive()
      return api.send(effect.sessionID, effect.input)
    },
    ask: (effect) => {
      ctx.assertLive()
      return api.send(effect.sessionID, { text: effect.text })
    },
    continue: (effect) => {
      ctx.assertLive()
      return api.send(effect.sessionID, effect.input)
    },
    "delete-session": (effect) => api.deleteSession(effect.sessionID),
    "set-title": (effect) => api.setTitle(effect.sessionID, effect.title),
    toast: ({ notice }) => api.toast(notice.variant, notice.title, notice.message, notice.duration),
    log: (effect) => api.log(effect.level, effect.message, effect.extra),
  } satisfies Partial<Handlers>
}
