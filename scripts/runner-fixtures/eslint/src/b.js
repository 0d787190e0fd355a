export function average(values) {
  debugger // fault:B
  return values.length ? values.reduce((sum, v) => sum + v, 0) / values.length : 0
}
