const add = (a, b) => a + b
const multiply = (a, b) => a * b
const formatTotal = (values) => `total: ${values.reduce(add, 0)}`
module.exports = { add, multiply, formatTotal }
