export function label(value) {
  log(value) // fault:C
  return `value: ${value}`
}
