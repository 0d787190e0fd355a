// Properties of JSON(C) objects set in place, touching no other byte. jsonc-parser's `modify` with
// formatting options re-formats the object it inserts into (an inline `{ "id": 1 }` becomes four
// lines, a minified file gets indented), and each call parses the whole text again (a 1 MB plan:
// ~75 ms per field). So the objects to edit are found in one pass of jsonc-parser's scanner, and
// a new property is inserted the way the object's own properties are laid out: the same gap between
// them, the same colon, kept before a line comment that ends the last property's line. Pure.
import { createScanner, type Edit, type JSONPath } from "jsonc-parser"

interface PropertySpan {
  key: string
  start: number
  keyEnd: number
  valueStart: number
  end: number
}

interface ObjectSpan {
  start: number
  properties: PropertySpan[]
}

export interface ObjectChange {
  /** The object's path in the file. */
  at: JSONPath
  /** Each property to set; `undefined` removes it. */
  set: Array<{ key: string; value: unknown }>
}

/** The edits that make `changes`; the text must be valid JSON(C), and every object must exist. */
export function propertyEdits(text: string, changes: readonly ObjectChange[]): Edit[] {
  const spans = objectSpans(
    text,
    changes.map((c) => c.at),
  )
  return changes.flatMap((change) => {
    const span = spans.get(pathKey(change.at))
    return span ? objectEdits(text, span, change.set) : []
  })
}

function objectEdits(text: string, span: ObjectSpan, set: ObjectChange["set"]): Edit[] {
  const edits: Edit[] = []
  const added: string[] = []
  for (const { key, value } of set) {
    const index = span.properties.findIndex((p) => p.key === key)
    const property = span.properties[index]
    if (property && value !== undefined)
      edits.push({
        offset: property.valueStart,
        length: property.end - property.valueStart,
        content: JSON.stringify(value),
      })
    else if (property) edits.push(removal(span, index))
    else if (value !== undefined) added.push(`${JSON.stringify(key)}${colon(text, span)}${JSON.stringify(value)}`)
  }
  return added.length > 0 ? [...edits, ...insertion(text, span, added)] : edits
}

/** From the end of the property before to its end; the first one, up to the next one. */
function removal(span: ObjectSpan, index: number): Edit {
  const property = span.properties[index] as PropertySpan
  const before = span.properties[index - 1]
  const after = span.properties[index + 1]
  const offset = before ? before.end : property.start
  const end = before || !after ? property.end : after.start
  return { offset, length: end - offset, content: "" }
}

const colon = (text: string, span: ObjectSpan) => {
  const last = span.properties.at(-1)
  return last ? text.slice(last.keyEnd, last.valueStart) : ": "
}

function insertion(text: string, span: ObjectSpan, properties: string[]): Edit[] {
  const last = span.properties.at(-1)
  if (!last) return [{ offset: span.start + 1, length: 0, content: ` ${properties.join(", ")} ` }]
  const before = span.properties.at(-2)
  const gap = text.slice(before ? before.end : span.start + 1, last.start)
  const newline = gap.lastIndexOf("\n")
  // One property on one line tells no gap between properties: `{"id":1}` gets none, `{"id": 1}` one space.
  const single = gap || (text.slice(last.keyEnd, last.valueStart).includes(" ") ? " " : "")
  const separator =
    newline >= 0
      ? gap.slice(gap[newline - 1] === "\r" ? newline - 1 : newline)
      : before
        ? gap.slice(gap.indexOf(",") + 1)
        : single
  const added = properties.map((p) => `${separator}${p}`).join(",")
  const lineEnd = endOfLine(text, last.end)
  const trailingComment = newline >= 0 && /^[ \t]*(\/\/|\/\*)/.test(text.slice(last.end, lineEnd))
  if (!trailingComment) return [{ offset: last.end, length: 0, content: `,${added}` }]
  return [
    { offset: last.end, length: 0, content: "," },
    { offset: lineEnd, length: 0, content: added },
  ]
}

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf("\n", from)
  const end = newline < 0 ? text.length : newline
  return text[end - 1] === "\r" ? end - 1 : end
}

const pathKey = (path: JSONPath) => path.join("\u0000")

/** jsonc-parser's SyntaxKind values (a const enum, which this build cannot import). */
const TOKEN = {
  openBrace: 1,
  closeBrace: 2,
  openBracket: 3,
  closeBracket: 4,
  comma: 5,
  colon: 6,
  string: 10,
  eof: 17,
} as const

/** The wanted paths as a tree, so the scan follows them a step at a time. */
interface PathTree {
  children: Map<string | number, PathTree>
  /** Set where a wanted path ends. */
  key?: string
}

function pathTree(paths: readonly JSONPath[]): PathTree {
  const root: PathTree = { children: new Map() }
  for (const path of paths) {
    let node = root
    for (const step of path) {
      const child = node.children.get(step) ?? { children: new Map() }
      node.children.set(step, child)
      node = child
    }
    node.key = pathKey(path)
  }
  return root
}

/**
 * The objects at `paths`, with their properties' offsets: one pass of the scanner that stops once
 * all are found, skipping whatever lies off the wanted paths without reading it.
 */
function objectSpans(text: string, paths: readonly JSONPath[]): Map<string, ObjectSpan> {
  const found = new Map<string, ObjectSpan>()
  const wanted = new Set(paths.map(pathKey)).size
  const scanner = createScanner(text, true)
  const next = () => scanner.scan()
  const token = (): number => scanner.getToken()
  const tokenEnd = () => scanner.getTokenOffset() + scanner.getTokenLength()
  const finished = () => found.size >= wanted
  next()

  /** Reads one value (`at`: where it is among the wanted paths, if on one); returns where it ends. */
  const value = (at: PathTree | undefined): number => {
    if (!at) return skip()
    if (token() === TOKEN.openBrace) return object(at)
    if (token() === TOKEN.openBracket) return array(at)
    return skip()
  }
  /** Past one value off the wanted paths: brackets counted, nothing read. */
  const skip = (): number => {
    for (let depth = 0; ; next()) {
      const kind = token()
      if (kind === TOKEN.eof) return text.length
      if (kind === TOKEN.openBrace || kind === TOKEN.openBracket) depth += 1
      else if (kind === TOKEN.closeBrace || kind === TOKEN.closeBracket) depth -= 1
      if (depth <= 0) break
    }
    const end = tokenEnd()
    next()
    return end
  }
  const object = (at: PathTree): number => {
    const span: ObjectSpan | undefined =
      at.key !== undefined ? { start: scanner.getTokenOffset(), properties: [] } : undefined
    if (span && at.key !== undefined) found.set(at.key, span)
    next()
    while (token() !== TOKEN.closeBrace && token() !== TOKEN.eof && !(finished() && !span)) {
      if (token() !== TOKEN.string) {
        next()
        continue
      }
      const key = scanner.getTokenValue()
      const start = scanner.getTokenOffset()
      const keyEnd = tokenEnd()
      next()
      if (token() === TOKEN.colon) next()
      const valueStart = scanner.getTokenOffset()
      const end = value(at.children.get(key))
      span?.properties.push({ key, start, keyEnd, valueStart, end })
      if (token() === TOKEN.comma) next()
    }
    const end = tokenEnd()
    next()
    return end
  }
  const array = (at: PathTree): number => {
    next()
    for (let index = 0; token() !== TOKEN.closeBracket && token() !== TOKEN.eof && !finished(); index += 1) {
      value(at.children.get(index))
      if (token() === TOKEN.comma) next()
    }
    const end = tokenEnd()
    next()
    return end
  }
  value(pathTree(paths))
  return found
}
