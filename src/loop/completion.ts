// Did the model keep its promise? Only `<promise>WORD</promise>` in the assistant's own text counts,
// with whitespace and case folded on both sides (the word's regex metacharacters are literal) — or
// one of the extra `completionMarkers` (seed 004's `<jikime:done />`), matched literally.
export function promisePattern(word: string): RegExp {
  const escaped = word
    .trim()
    .split(/\s+/)
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("\\s+")
  return new RegExp(`<promise>\\s*${escaped}\\s*</promise>`, "i")
}

export function keptPromise(texts: readonly string[], word: string, markers: readonly string[] = []): boolean {
  const pattern = promisePattern(word)
  return texts.some((text) => pattern.test(text) || markers.some((marker) => text.includes(marker)))
}
