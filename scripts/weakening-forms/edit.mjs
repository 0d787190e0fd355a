// The edits a form makes to a tree: each is (text of the file, or undefined when absent; the whole tree) -> new text.

/** Replaces the one occurrence of `from` (a form whose text is gone fails loudly, never silently does nothing). */
export const sub = (from, to) => (text) => {
  if (text === undefined || !text.includes(from)) throw new Error(`edit: ${JSON.stringify(from)} not found`)
  return text.replace(from, () => to)
}

/** Several replacements in order. */
export const subs =
  (...pairs) =>
  (text) =>
    pairs.reduce((t, [from, to]) => sub(from, to)(t), text)

export const append = (more) => (text) => `${text ?? ""}${more}`

export const prepend = (more) => (text) => `${more}${text ?? ""}`

/** The text of another file of the tree (as it is at that point of the edits), optionally changed. */
export const copyOf =
  (path, change = (t) => t) =>
  (_text, tree) => {
    if (!tree.has(path)) throw new Error(`edit: no ${path} to copy`)
    return change(tree.get(path))
  }
