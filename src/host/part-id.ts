// Ids for parts the plugin adds. OpenCode orders parts by id and its ids are
// `prt_` + 12 hex digits of (milliseconds × 4096 + counter) + 14 random characters, so one made now
// sorts after the parts of the message being written.
import { randomBytes } from "node:crypto"

let counter = 0n
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

export function newPartID(now = Date.now()): string {
  counter = (counter + 1n) % 4096n
  const stamp = ((BigInt(now) * 4096n + counter) & 0xffffffffffffn).toString(16).padStart(12, "0")
  const random = [...randomBytes(14)].map((b) => ALPHABET[b % ALPHABET.length]).join("")
  return `prt_${stamp}${random}`
}
