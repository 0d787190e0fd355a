// The files a check's command calls (issue 46): a script it runs (`bash scripts/test.sh`,
// `./ci.sh`, `node tools/run-tests.mjs`), the Makefile `make` reads, the justfile `just` reads, and
// the files the package.json scripts it runs call in turn, to a bounded depth. They are test surface:
// a `|| true` at the end of one hides every failure. Pure: the caller gives the texts.
import { reachedScripts, scriptsOf } from "../evidence/scripts.js"

const OPERATORS = ["&&", "||", ";", "|", "(", ")", "`", "$(", "\n", ">", "<"]
const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"]
const JUSTFILES = ["justfile", "Justfile", ".justfile"]
/** Files whose text is read for the files they call in turn. */
const SCRIPT_EXTENSIONS = new Set(["sh", "bash", "zsh", "mjs", "js", "cjs", "ts", "mts", "py", "mk"])
const DEPTH = 3

/** The words of a command line, unquoted, with a leading `./` taken off. */
function commandWords(command: string): string[] {
  let pieces = [command]
  for (const operator of OPERATORS) pieces = pieces.flatMap((p) => p.split(operator))
  return pieces
    .flatMap((p) => p.split(/\s+/))
    .map((w) => w.replaceAll('"', "").replaceAll("'", ""))
    .map((w) => (w.startsWith("./") ? w.slice(2) : w))
    .filter((w) => w !== "" && !w.startsWith("-"))
}

/** A file whose text may call other files: a script by its extension, or a Makefile, or none at all. */
function readsFurther(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1)
  if (MAKEFILES.includes(name) || JUSTFILES.includes(name)) return true
  const dot = name.lastIndexOf(".")
  return dot <= 0 || SCRIPT_EXTENSIONS.has(name.slice(dot + 1))
}

/** The files of `files` one command line names directly. */
function namedIn(command: string, files: ReadonlySet<string>): string[] {
  const words = commandWords(command)
  const named = words.filter((w) => files.has(w))
  if (words.includes("make")) named.push(...MAKEFILES.filter((f) => files.has(f)))
  if (words.includes("just")) named.push(...JUSTFILES.filter((f) => files.has(f)))
  return named
}

export interface CalledInput {
  commands: readonly string[]
  /** Every file of the tree the commands run in. */
  files: ReadonlySet<string>
  /** A file's text in that tree (undefined: not read, or not text). */
  text: (path: string) => Promise<string | undefined>
}

/** Every file the commands call, directly, through the package.json scripts they run, or through those files. */
export async function calledFiles({ commands, files, text }: CalledInput): Promise<Set<string>> {
  const scripts = files.has("package.json") ? scriptsOf((await text("package.json")) ?? null) : {}
  const lines = [...commands]
  for (const command of commands)
    for (const name of reachedScripts(command, scripts)) if (scripts[name] !== undefined) lines.push(scripts[name])
  const called = new Set<string>()
  let frontier = lines.flatMap((line) => namedIn(line, files))
  for (let depth = 0; depth < DEPTH && frontier.length > 0; depth += 1) {
    const next: string[] = []
    for (const path of frontier) {
      if (called.has(path)) continue
      called.add(path)
      if (!readsFurther(path)) continue
      const body = await text(path)
      if (body !== undefined) next.push(...namedIn(body, files))
    }
    frontier = next
  }
  for (const path of frontier) called.add(path)
  return called
}
