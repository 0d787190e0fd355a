// The identity of an output no parser recognised: the whole of it, normalised — paths made relative
// (or to their name), numbers, durations and hex ids folded to `#`, whitespace collapsed — and of a
// bounded length (a long one is its start and a hash of the whole). Never one line picked out of it.
import { hash, projectPath } from "./text.js"

// An absolute path: after a start, a space or an opening quote/bracket (not inside `a/b`).
const ABSOLUTE = /(?<![\w.~-])(?:file:\/\/)?(?:[A-Za-z]:)?\/[^\s'"`()<>,;]*/g
const HEX = /\b(?:0x)?[0-9a-fA-F]{6,}\b/g
const SHORT = 160

export function wholeOutput(text: string, directory?: string): string | undefined {
  // A check keeps the end of a long output: its first line may be cut anywhere.
  const body = text.length >= 1_024 ? text.slice(text.indexOf("\n") + 1) : text
  const normal = body
    .replace(ABSOLUTE, (path) => {
      const inside = projectPath(path, directory)
      return inside.startsWith("/") || /^[A-Za-z]:\//.test(inside)
        ? `…/${inside.slice(inside.lastIndexOf("/") + 1)}`
        : inside
    })
    .replace(HEX, (word) => (/\d/.test(word) ? "#" : word))
    .replace(/\d+/g, "#")
    .replace(/\s+/g, " ")
    .trim()
  if (normal === "") return undefined
  return normal.length <= SHORT ? normal : `${normal.slice(0, 120)}… #${hash(normal)}`
}
