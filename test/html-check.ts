// A strict enough HTML reader for tests of the generated report (no parser dependency): every
// element closes in order, attributes are quoted; returns the elements found, with their
// attributes, so a test can count the charts and their points.

export interface Element {
  tag: string
  attrs: Record<string, string>
  /** Tags of the enclosing elements, outermost first. */
  path: string[]
}

const VOID = new Set(["meta", "link", "br", "hr", "img", "input", "col", "area", "base", "wbr", "source"])
/** SVG's self-closing elements are written with "/>". */
const TAG = /<!--[\s\S]*?-->|<!DOCTYPE[^>]*>|<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:="[^"]*")?)*)\s*(\/?)>/g

/** Throws with the place of the first problem; otherwise the elements in document order. */
export function parseHtml(html: string): Element[] {
  const open: string[] = []
  const elements: Element[] = []
  let end = 0
  for (const match of html.matchAll(TAG)) {
    const between = html.slice(end, match.index)
    if (/[<>]/.test(between)) throw new Error(`stray < or > at ${end}: ${between.slice(0, 60)}`)
    end = (match.index ?? 0) + match[0].length
    const [, closing, rawTag, rawAttrs, selfClosing] = match
    if (!rawTag) continue
    const tag = rawTag.toLowerCase()
    if (closing) {
      const top = open.pop()
      if (top !== tag) throw new Error(`</${tag}> at ${match.index} closes <${top}>`)
      continue
    }
    const attrs = Object.fromEntries(
      [...(rawAttrs ?? "").matchAll(/([\w:-]+)(?:="([^"]*)")?/g)].map((a) => [a[1] as string, a[2] ?? ""]),
    )
    elements.push({ tag, attrs, path: [...open] })
    if (!selfClosing && !VOID.has(tag)) open.push(tag)
  }
  if (/[<>]/.test(html.slice(end))) throw new Error("stray < or > at the end")
  if (open.length) throw new Error(`unclosed: ${open.join(" > ")}`)
  return elements
}
