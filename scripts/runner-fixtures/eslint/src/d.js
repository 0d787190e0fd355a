export function count(values) {
  return { size: values.length, size: 0 } // fault:D
  return { size: values.length } // fixed:D
}
