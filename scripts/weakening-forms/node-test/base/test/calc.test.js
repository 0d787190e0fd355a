import assert from "node:assert/strict"
import { describe, test } from "node:test"
import { add, multiply } from "../src/calc.js"

describe("calc", () => {
  test("adds", () => {
    assert.equal(add(1, 2), 3)
  })

  test("multiplies", () => {
    assert.equal(multiply(2, 3), 6)
  })
})
