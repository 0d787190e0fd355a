// One reading of the errors OpenCode reports, whether they come on a message, in an event or as the
// answer to a call: every field checked, none trusted.
import { describe, expect, it } from "vitest"
import { parseError } from "../../src/host/error.js"

describe("parseError", () => {
  it("reads the SDK's API error: message, status, OpenCode's retry verdict and the response headers", () => {
    const error = {
      name: "APIError",
      data: {
        message: "Too Many Requests",
        statusCode: 429,
        isRetryable: true,
        responseHeaders: { "retry-after": "20" },
        responseBody: "{}",
      },
    }
    expect(parseError(error)).toEqual({
      name: "APIError",
      message: "Too Many Requests",
      statusCode: 429,
      retryable: true,
      headers: { "retry-after": "20" },
      body: "{}",
    })
  })

  it("falls back to the name for an error without a message (MessageOutputLengthError has none)", () => {
    expect(parseError({ name: "MessageOutputLengthError", data: {} })).toEqual({
      name: "MessageOutputLengthError",
      message: "MessageOutputLengthError",
    })
  })

  it("keeps what is well-formed of a malformed error and drops the rest", () => {
    expect(
      parseError({
        name: "APIError",
        data: { message: 5, statusCode: "429", isRetryable: "yes", responseHeaders: { a: "1", b: 2 } },
      }),
    ).toEqual({
      name: "APIError",
      message: "APIError",
      headers: { a: "1" },
    })
    expect(parseError({ name: "APIError", data: null })).toEqual({ name: "APIError", message: "APIError" })
    for (const nothing of [undefined, null, "boom", 42, []])
      expect(parseError(nothing)).toEqual({ name: "UnknownError", message: "unknown error" })
  })
})
