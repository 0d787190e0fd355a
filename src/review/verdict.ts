// The reviewer's verdict, read from its reply: `<verdict>approve</verdict>`, or
// `<verdict>reject</verdict>` with its reasons as a list. Anything else is malformed.

export type Verdict = { kind: "approve" } | { kind: "reject"; reasons: string[] } | { kind: "malformed" }

const VERDICT = /<verdict>\s*(approve|reject)\s*<\/verdict>/gi
// The item's text runs from its first to its last non-blank: with `(.+?)\s*$`, a long blank run inside
// it was read to its end from each of its blanks (and split with the `\s+` before it every way). A
// bullet followed by blanks alone is no item.
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)])\s+(\S(?:.*\S)?)\s*$/

/** The last verdict tag of the reply counts (a reviewer may quote the format before answering). */
export function parseVerdict(reply: string): Verdict {
  const tags = [...reply.matchAll(VERDICT)]
  const last = tags.at(-1)
  if (!last) return { kind: "malformed" }
  if (last[1]?.toLowerCase() === "approve") return { kind: "approve" }
  const after = reply.slice((last.index ?? 0) + last[0].length)
  const before = reply.slice(0, last.index ?? 0)
  // The reasons: the list after the verdict, else the list before it, else the text around it.
  const items = (text: string) => text.split("\n").flatMap((line) => LIST_ITEM.exec(line)?.slice(1, 2) ?? [])
  const listed = items(after).length > 0 ? items(after) : items(before)
  const reasons = listed.length > 0 ? listed : [after.trim() || before.replace(VERDICT, "").trim()].filter(Boolean)
  return {
    kind: "reject",
    reasons: reasons.length > 0 ? reasons : ["the reviewer rejected the change without giving reasons"],
  }
}
