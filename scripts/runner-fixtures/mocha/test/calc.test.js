import assert from "node:assert/strict"
import { add, multiply } from "../src/calc.js"

describe("calc", () => {
  it("adds small numbers", () => {
    assert.equal(add(1, 2), 3)
    assert.equal(add(2, 2), 5) // fault:A
  })

  it("adds negative numbers", () => {
    assert.equal(add(-1, -2), -3)
    assert.equal(add(-1, -2), 3) // fault:B
  })

  describe("multiply", () => {
    it("multiplies", () => {
      assert.equal(multiply(3, 4), 12)
      assert.equal(multiply(3, 4), 7) // fault:C
    })
  })
})
