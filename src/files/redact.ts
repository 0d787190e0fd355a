// What a log line, a message or a file of the plugin may show of a URL. The webhook's URL is a
// secret (Slack puts the hook's token in its path), and any URL can carry one in its userinfo, path
// or query: only the scheme and the host are shown, and "/…" says that more was hidden. The webhook
// itself is never stored with a loop (`withoutWebhook`): it is read from the settings in force. Pure.

const URL_START = /^[a-z][a-z\d+.-]*:\/\//i
/** What separates the words of a text, where a URL may begin or end. */
const SEPARATORS = /([\s"'`<>()[\]{},;]+)/

/** `https://hooks.slack.com/services/T/B/x` → `https://hooks.slack.com/…`; what is not a URL → `(hidden)`. */
export function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "(hidden)"
  }
  if (!parsed.host) return "(hidden)"
  const more =
    parsed.username ||
    parsed.password ||
    parsed.search ||
    parsed.hash ||
    (parsed.pathname !== "/" && parsed.pathname !== "")
  return `${parsed.protocol}//${parsed.host}${more ? "/…" : ""}`
}

/** `text` with every URL in it (a word starting with `scheme://`) shown as `redactUrl` shows it. Linear in `text`. */
export function redactUrls(text: string): string {
  if (!text.includes("://")) return text
  return text
    .split(SEPARATORS)
    .map((word) => (URL_START.test(word) ? redactUrl(word) : word))
    .join("")
}

/** A JSON.stringify replacer: a `webhook` as `redactUrl` shows it (whatever it holds), any other string's URLs too. */
export function redactingReplacer(key: string, value: unknown): unknown {
  if (typeof value !== "string") return value
  return key === "webhook" ? redactUrl(value) : redactUrls(value)
}

/** A copy of `value` (settings, say) fit for a log line. */
export function redacted<T>(value: T): T {
  const text = JSON.stringify(value, redactingReplacer)
  return text === undefined ? value : (JSON.parse(text) as T)
}

/** Settings without the webhook: what a loop keeps, and so its state file and journal. */
export function withoutWebhook<T extends { notify: { webhook?: string | undefined } }>(settings: T): T {
  if (settings.notify.webhook === undefined) return settings
  const { webhook: _webhook, ...notify } = settings.notify
  return { ...settings, notify }
}
