// A model's command that would accept what refused its own claim (issue 46): `ralph-loop accept …`
// (also through npx or a path to the CLI), or one that touches the variable that marks a model's shell
// (src/hooks/shell-env.ts). The tool guard refuses it while a loop runs, and the loop keeps the
// refusal. The marked shell is the rule; this catches the plain forms before they run. Pure, linear.
import { MODEL_SESSION_ENV } from "../evidence/accepted.js"

/** Why the command is refused as a model accepting its own findings; undefined when it is not one. */
export function selfAcceptRefusal(tool: string, args: unknown): string | undefined {
  const command = tool === "bash" ? (args as { command?: unknown } | undefined)?.command : undefined
  if (typeof command !== "string") return undefined
  if (command.includes(MODEL_SESSION_ENV)) return `this command touches ${MODEL_SESSION_ENV}, which marks your shell`
  // From each simple command's first "ralph-loop" to its end (a `;`, `|`, `&` or line end): each character read once.
  for (let cli = command.indexOf("ralph-loop"); cli >= 0; ) {
    const end = simpleCommandEnd(command, cli)
    if (/\baccept\b/.test(command.slice(cli, end))) return "ralph-loop accept is the user's command, not yours"
    cli = command.indexOf("ralph-loop", end)
  }
  return undefined
}

function simpleCommandEnd(command: string, start: number): number {
  let end = start
  while (end < command.length && !";|&\n".includes(command[end] as string)) end += 1
  return end
}
