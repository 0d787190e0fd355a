// One property of a JSON(C) object set, touching no other byte. jsonc-parser's `modify` replaces a
// value in place, but with formatting options it re-formats the object it inserts into (an inline
// `{ "id": 1 }` becomes four lines, a minified file becomes indented) and without them it inserts
// `,"key":value` with no space at all. So a new property is inserted here the way the object's own
// properties are laid out: the same gap between them, the same colon, kept before a line comment
// that ends the last property's line. Pure.
import { applyEdits, findNodeAtLocation, modify, parseTree, type Edit, type JSONPath, type Node } from "jsonc-parser"

/** `text` with the property at `path` set to `value` (`undefined` removes it); the object must exist. */
export function setProperty(text: string, path: JSONPath, value: unknown): string {
  const root = parseTree(text, [], { allowTrailingComma: true })
  const object = root && findNodeAtLocation(root, path.slice(0, -1))
  const key = path.at(-1)
  const exists = object?.children?.some((p) => p.children?.[0]?.value === key)
  if (!object || object.type !== "object" || typeof key !== "string" || exists || value === undefined || !object.children?.length)
    return applyEdits(text, modify(text, path, value, {}))
  return applyEdits(text, insertion(text, object, key, value))
}

function insertion(text: string, object: Node, key: string, value: unknown): Edit[] {
  const properties = object.children as Node[]
  const last = properties.at(-1) as Node
  const before = properties.at(-2)
  const gapStart = before ? before.offset + before.length : object.offset + 1
  const gap = text.slice(gapStart, last.offset)
  const newline = gap.lastIndexOf("\n")
  const separator = newline >= 0 ? gap.slice(gap[newline - 1] === "\r" ? newline - 1 : newline) : before ? gap.slice(gap.indexOf(",") + 1) : gap
  const [lastKey, lastValue] = last.children as [Node, Node]
  const colon = text.slice(lastKey.offset + lastKey.length, lastValue.offset)
  const property = `${JSON.stringify(key)}${colon}${JSON.stringify(value)}`
  const end = last.offset + last.length
  const lineEnd = endOfLine(text, end)
  const trailingComment = newline >= 0 && /^[ \t]*(\/\/|\/\*)/.test(text.slice(end, lineEnd))
  if (!trailingComment) return [{ offset: end, length: 0, content: `,${separator}${property}` }]
  return [
    { offset: end, length: 0, content: "," },
    { offset: lineEnd, length: 0, content: `${separator}${property}` },
  ]
}

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf("\n", from)
  const end = newline < 0 ? text.length : newline
  return text[end - 1] === "\r" ? end - 1 : end
}
