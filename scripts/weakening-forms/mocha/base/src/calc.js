export function add(a, b) {
  return a - b
}

export function multiply(a, b) {
  return a * b
}

export function describeSum(a, b) {
  return `${a} + ${b} = ${add(a, b)}`
}
