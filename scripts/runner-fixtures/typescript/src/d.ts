export function report(value: number): void {
  missing(value) // fault:D
  console.info(value) // fixed:D
}
