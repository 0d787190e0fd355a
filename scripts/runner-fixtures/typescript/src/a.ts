export const limit: number = "three" // fault:A
export const limit: number = 3 // fixed:A
