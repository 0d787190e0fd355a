export const add = (a, b) => a + b
export const multiply = (a, b) => a * b
export const formatTotal = (values) => `total: ${values.reduce(add, 0)}`
