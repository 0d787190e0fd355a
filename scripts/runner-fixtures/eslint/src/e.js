export const ok = 1
export const broken = (1 + // fault:E
