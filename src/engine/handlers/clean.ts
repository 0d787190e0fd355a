// Production's handler of `ralph-loop clean` run in this OpenCode (src/clean/effects.ts).
import type { Handlers } from "../../effects/kernel.js"
import { cleanProject } from "../../clean/clean-project.js"
import type { HandlerContext } from "./context.js"

export function cleanHandlers({ now }: HandlerContext) {
  return {
    "project-clean": async (effect) => {
      const lines: string[] = []
      const ok = await cleanProject(effect.request, (line) => lines.push(line), now())
      return { ok, lines }
    },
  } satisfies Partial<Handlers>
}
