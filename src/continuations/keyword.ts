// keyword (seed 003's keyword detector): a typed message that starts with one of the keywords
// ("ralph:" by default, any case) starts a loop with the rest of the message as /ralph's arguments.

/** The rest of the message after the longest matching keyword, or undefined when none matches. */
export function keywordArguments(text: string, keywords: readonly string[]): string | undefined {
  const start = text.trimStart()
  const lower = start.toLowerCase()
  const hit = keywords
    .filter((k) => k.length > 0 && lower.startsWith(k.toLowerCase()))
    .sort((a, b) => b.length - a.length)[0]
  return hit === undefined ? undefined : start.slice(hit.length).trim()
}
