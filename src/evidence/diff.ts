// A unified diff as `git diff` prints it (default a/ b/ prefixes, renames found or not, binary
// files, quoted paths, `--no-index` for new files), read into files, hunks and lines with each
// line's number on its side. Each line is read once: a hunk's line counts say where it ends, so a
// removed line that begins with `--- ` is never taken for a file's header. Pure.

export interface DiffLine {
  /** `+` added, `-` removed, ` ` context. */
  kind: "+" | "-" | " "
  text: string
  /** Its number in the old file (for `-` and ` `) or the new one (for `+`). */
  line: number
}

export interface Hunk {
  /** What git prints after the second `@@` (the enclosing function or section, when it finds one). */
  context: string
  oldStart: number
  newStart: number
  lines: DiffLine[]
}

export interface FileDiff {
  /** Null for a new file. */
  oldPath: string | null
  /** Null for a deleted file. */
  newPath: string | null
  binary: boolean
  hunks: Hunk[]
}

/** The path a file has now (or had, when deleted). */
export const pathOf = (file: FileDiff): string => file.newPath ?? file.oldPath ?? ""

/** A path as git prints it: `"a/caf\303\251 x.txt"` unquoted (octal bytes are UTF-8), its a/ or b/ dropped. */
function gitPath(raw: string, prefixed = true): string | null {
  let path = raw.endsWith("\t") ? raw.slice(0, -1) : raw
  if (path === "/dev/null") return null
  if (path.startsWith('"') && path.endsWith('"') && path.length >= 2) path = unquote(path.slice(1, -1))
  return prefixed && (path.startsWith("a/") || path.startsWith("b/")) ? path.slice(2) : path
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 }

const encoder = new TextEncoder()

function unquote(text: string): string {
  const bytes: number[] = []
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!
    if (c !== "\\" || i + 1 >= text.length) {
      for (const b of encoder.encode(c)) bytes.push(b)
      continue
    }
    const next = text[i + 1]!
    if (next >= "0" && next <= "7" && i + 3 < text.length) {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8) & 0xff)
      i += 3
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0))
      i += 1
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes))
}

/** `a/x b/x` of `diff --git`: the two paths when they are the same (a rename names them in its own lines). */
function headerPath(rest: string): string | null {
  if (rest.startsWith('"')) {
    const end = rest.indexOf('" ', 1)
    return end > 0 ? gitPath(rest.slice(0, end + 1)) : null
  }
  const half = (rest.length - 1) / 2
  return Number.isInteger(half) && rest[half] === " " ? gitPath(rest.slice(0, half)) : null
}

/** `@@ -12,3 +14,4 @@ context`: its starts and counts (a missing count is 1). */
interface HunkHeader {
  oldStart: number
  oldCount: number
  newStart: number
  newCount: number
  context: string
}

function hunkHeader(line: string): HunkHeader | undefined {
  const end = line.indexOf(" @@", 3)
  if (!line.startsWith("@@ -") || end < 0) return undefined
  const [old = "", now = ""] = line.slice(4, end).split(" +")
  const range = (text: string) => {
    const comma = text.indexOf(",")
    return comma < 0 ? [Number(text), 1] : [Number(text.slice(0, comma)), Number(text.slice(comma + 1))]
  }
  const [oldStart = NaN, oldCount = NaN] = range(old)
  const [newStart = NaN, newCount = NaN] = range(now)
  if (![oldStart, oldCount, newStart, newCount].every(Number.isInteger)) return undefined
  return { oldStart, oldCount, newStart, newCount, context: line.slice(end + 3).trim() }
}

export function parseDiff(text: string): FileDiff[] {
  const files: FileDiff[] = []
  let file: FileDiff | undefined
  let hunk: Hunk | undefined
  let oldLeft = 0
  let newLeft = 0
  let oldLine = 0
  let newLine = 0
  for (const line of text.split("\n")) {
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      const kind = line[0]
      if (kind === "-" && oldLeft > 0) {
        hunk.lines.push({ kind, text: line.slice(1), line: oldLine++ })
        oldLeft -= 1
        continue
      }
      if (kind === "+" && newLeft > 0) {
        hunk.lines.push({ kind, text: line.slice(1), line: newLine++ })
        newLeft -= 1
        continue
      }
      if ((kind === " " || line === "") && oldLeft > 0 && newLeft > 0) {
        hunk.lines.push({ kind: " ", text: line.slice(1), line: oldLine++ })
        newLine += 1
        oldLeft -= 1
        newLeft -= 1
        continue
      }
      if (kind === "\\") continue // \ No newline at end of file
    }
    if (line.startsWith("\\")) continue
    if (line.startsWith("diff --git ")) {
      const path = headerPath(line.slice("diff --git ".length))
      file = { oldPath: path, newPath: path, binary: false, hunks: [] }
      files.push(file)
      hunk = undefined
      continue
    }
    if (!file) continue
    const header = hunkHeader(line)
    if (header) {
      hunk = { context: header.context, oldStart: header.oldStart, newStart: header.newStart, lines: [] }
      file.hunks.push(hunk)
      ;({ oldCount: oldLeft, newCount: newLeft } = header)
      oldLine = header.oldStart
      newLine = header.newStart
      continue
    }
    if (hunk) continue // past the hunk's lines: nothing but the next header belongs to this file
    if (line.startsWith("new file mode")) file.oldPath = null
    else if (line.startsWith("deleted file mode")) file.newPath = null
    else if (line.startsWith("rename from ")) file.oldPath = gitPath(line.slice("rename from ".length), false)
    else if (line.startsWith("rename to ")) file.newPath = gitPath(line.slice("rename to ".length), false)
    else if (line.startsWith("--- ")) file.oldPath = gitPath(line.slice(4))
    else if (line.startsWith("+++ ")) file.newPath = gitPath(line.slice(4))
    else if (line.startsWith("Binary files ") || line === "GIT binary patch") file.binary = true
  }
  return files
}

/** The files a diff changes, each by the path it has now (a deleted one by its old path). */
export const changedPaths = (files: readonly FileDiff[]): string[] => [...new Set(files.map(pathOf))].sort()
