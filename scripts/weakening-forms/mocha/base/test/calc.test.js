import assert from "node:assert/strict"
import { add, multiply } from "../src/calc.js"

describe("calc", () => {
  it("adds", () => {
    assert.equal(add(1, 2), 3)
  })

  it("multiplies", () => {
    assert.equal(multiply(2, 3), 6)
  })
})
