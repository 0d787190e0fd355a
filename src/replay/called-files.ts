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

/** The words of one command line that may name a file it calls, and the Makefile or justfile it reads. */
function candidates(command: string): string[] {
  const words = commandWords(command)
  if (words.includes("make")) words.push(...MAKEFILES)
  if (words.includes("just")) words.push(...JUSTFILES)
  return words
}

/** A path as a tree lists it: relative, no `.` or `..` or empty part (any other word can name no file). */
function treePath(word: string): boolean {
  if (word.startsWith("/") || word.endsWith("/")) return false
  return word.split("/").every((part) => part !== "" && part !== "." && part !== "..")
}

export interface CalledInput {
  commands: readonly string[]
  /** Which of these paths are files of the tree the commands run in (asked once for each depth). */
  exists: (paths: readonly string[]) => Promise<ReadonlySet<string>>
  /** A file's text in that tree (undefined: not read, or not text). */
  text: (path: string) => Promise<string | undefined>
}

/** The candidates that are files of the tree, in their order. */
async function named(words: readonly string[], exists: CalledInput["exists"]): Promise<string[]> {
  const asked = [...new Set(words.filter(treePath))]
  const files = asked.length === 0 ? new Set<string>() : await exists(asked)
  return words.filter((word) => files.has(word))
}

/** Every file the commands call, directly, through the package.json scripts they run, or through those files. */
export async function calledFiles({ commands, exists, text }: CalledInput): Promise<Set<string>> {
  const first = await named(["package.json", ...commands.flatMap(candidates)], exists)
  const scripts = first[0] === "package.json" ? scriptsOf((await text("package.json")) ?? null) : {}
  const lines: string[] = []
  for (const command of commands)
    for (const name of reachedScripts(command, scripts)) if (scripts[name] !== undefined) lines.push(scripts[name])
  let frontier = [
    ...first.slice(first[0] === "package.json" ? 1 : 0),
    ...(await named(lines.flatMap(candidates), exists)),
  ]
  const called = new Set<string>()
  for (let depth = 0; depth < DEPTH && frontier.length > 0; depth += 1) {
    const next: string[] = []
    for (const path of frontier) {
      if (called.has(path)) continue
      called.add(path)
      if (!readsFurther(path)) continue
      const body = await text(path)
      if (body !== undefined) next.push(...candidates(body))
    }
    frontier = await named(next, exists)
  }
  for (const path of frontier) called.add(path)
  return called
}
