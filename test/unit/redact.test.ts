// The one rule of what may be shown of a URL: scheme and host, and "/…" where more was hidden.
import { describe, expect, it } from "vitest"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { redacted, redactingReplacer, redactUrl, redactUrls, withoutWebhook } from "../../src/files/redact.js"

describe("redactUrl", () => {
  it("a Slack hook: its origin only", () => {
    expect(redactUrl("https://hooks.slack.com/services/T0001/B0002/XoXbT0kEn")).toBe("https://hooks.slack.com/…")
  })

  it("userinfo, a query, a fragment or a path is hidden; the port stays", () => {
    expect(redactUrl("https://user:pass@example.com/")).toBe("https://example.com/…")
    expect(redactUrl("https://user@example.com")).toBe("https://example.com/…")
    expect(redactUrl("https://example.com/?token=abc")).toBe("https://example.com/…")
    expect(redactUrl("https://example.com#abc")).toBe("https://example.com/…")
    expect(redactUrl("http://127.0.0.1:8080/hook")).toBe("http://127.0.0.1:8080/…")
  })

  it("nothing to hide: the origin as it is", () => {
    expect(redactUrl("https://example.com")).toBe("https://example.com")
    expect(redactUrl("https://example.com/")).toBe("https://example.com")
    expect(redactUrl("ftp://x")).toBe("ftp://x")
  })

  it("what is not a URL with a host is hidden whole", () => {
    expect(redactUrl("hooks.slack.com/services/T/B/XoXbT0kEn")).toBe("(hidden)")
    expect(redactUrl("mailto:me@example.com")).toBe("(hidden)")
    expect(redactUrl("")).toBe("(hidden)")
  })
})

describe("redactUrls", () => {
  it("every URL in a text, whatever stands around it; the rest untouched", () => {
    expect(redactUrls("curl -fsS https://u:secret@ci.example/health?key=k && echo ok")).toBe(
      "curl -fsS https://ci.example/… && echo ok",
    )
    expect(redactUrls('from a URL that includes credentials: "http://u:p@h:1/x" (and (https://a.b/c))')).toBe(
      'from a URL that includes credentials: "http://h:1/…" (and (https://a.b/…))',
    )
    expect(redactUrls("no URL here: a:b, //c")).toBe("no URL here: a:b, //c")
  })
})

describe("settings as a log line or a message shows them", () => {
  it("the webhook by its origin (or hidden when it is no URL), any other string's URLs too", () => {
    const settings = {
      ...DEFAULT_SETTINGS,
      notify: { desktop: true, on: ["ended" as const], webhook: "https://hooks.slack.com/services/T/B/XoXbT0kEn" },
      checks: [{ name: "up", command: "curl https://t0k3n@ci.example/x", kind: "test" as const }],
    }
    const shown = redacted(settings)
    expect(shown.notify).toEqual({ desktop: true, on: ["ended"], webhook: "https://hooks.slack.com/…" })
    expect(shown.checks[0]?.command).toBe("curl https://ci.example/…")
    expect(shown.maxRetries).toBe(DEFAULT_SETTINGS.maxRetries)
    expect(JSON.stringify({ notify: { webhook: "not a url/XoXbT0kEn" } }, redactingReplacer)).toBe(
      '{"notify":{"webhook":"(hidden)"}}',
    )
  })

  it("a loop's settings: no webhook at all", () => {
    const settings = {
      ...DEFAULT_SETTINGS,
      notify: { desktop: false, on: ["ended" as const], webhook: "https://hooks.slack.com/services/T/B/x" },
    }
    expect(withoutWebhook(settings).notify).toEqual({ desktop: false, on: ["ended"] })
    expect(settings.notify.webhook).toBeDefined()
    expect(withoutWebhook(DEFAULT_SETTINGS)).toBe(DEFAULT_SETTINGS)
  })
})
