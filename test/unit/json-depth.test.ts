// How deep a JSON(C) text nests, found without parsing it (jsonc-parser's recursion overflows).
import { parse } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { MAX_JSON_DEPTH, tooDeepAt } from "../../src/files/json-depth.js"

const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`

describe("tooDeepAt", () => {
  it("up to the limit: undefined; one more: the offset of the bracket past it", () => {
    expect(tooDeepAt(nested(MAX_JSON_DEPTH))).toBeUndefined()
    expect(tooDeepAt(nested(MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH)
    expect(tooDeepAt('{"a": {"b": [1]}}', 3)).toBeUndefined()
    expect(tooDeepAt('{"a": {"b": [{}]}}', 3)).toBe(13)
  })

  it("siblings do not add up; brackets in strings and comments do not count", () => {
    expect(tooDeepAt(`[${"[],".repeat(10_000)}[]]`, 2)).toBeUndefined()
    expect(
      tooDeepAt(`{ "a": "${"[".repeat(1_000)}" /* ${"{".repeat(1_000)} */ } // ${"[".repeat(1_000)}`, 1),
    ).toBeUndefined()
  })

  it("a closer that does not close the innermost opener does not count: never shallower than jsonc-parser goes", () => {
    const text = `[${"[1},".repeat(5_000)}]`
    expect(tooDeepAt(text)).toBeDefined()
    // What it guards against: jsonc-parser nests one level per "[1}," and overflows the stack.
    expect(() => parse(`[${"[1},".repeat(100_000)}]`, [])).toThrow(RangeError)
  })
})
