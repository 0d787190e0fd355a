export const add = (a: number, b: number): number => a + b
export const sum = add(1, 2, 3) // fault:C
export const sum = add(1, 2) // fixed:C
