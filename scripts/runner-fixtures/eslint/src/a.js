export function total(values) {
  let start = 0 // fault:A
  const start = 0 // fixed:A
  const unused = values.length // fault:A
  return values.reduce((sum, v) => sum + v, start)
}
