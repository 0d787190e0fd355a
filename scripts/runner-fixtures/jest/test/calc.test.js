const { add, multiply } = require("../src/calc.js")

describe("calc", () => {
  test("adds small numbers", () => { // fixed:R
    expect(add(1, 2)).toBe(3) // fixed:R
    expect(add(2, 2)).toBe(5) // fault:A
  }) // fixed:R

  test("adds negative numbers", () => { // fixed:S
  test.skip("adds negative numbers", () => { // fault:S
    expect(add(-1, -2)).toBe(-3)
    expect(add(-1, -2)).toBe(3) // fault:B
  })

  describe("multiply", () => {
    test("multiplies", () => {
      expect(multiply(3, 4)).toBe(12)
      expect(multiply(3, 4)).toBe(7) // fault:C
    })
  })
})
