export function label(value: number): string {
  return value // fault:B
  return String(value) // fixed:B
}
