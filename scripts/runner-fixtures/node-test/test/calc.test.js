import assert from "node:assert/strict"
import { describe, it } from "node:test"
import { add, multiply } from "../src/calc.js"

describe("calc", () => {
  it("adds small numbers", () => { // fixed:R
    assert.equal(add(1, 2), 3) // fixed:R
    assert.equal(add(2, 2), 5) // fault:A
  }) // fixed:R

  it("adds negative numbers", () => { // fixed:S
  it.skip("adds negative numbers", () => { // fault:S
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
