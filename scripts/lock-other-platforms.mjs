// Adds to package-lock.json the optional platform packages that `npm install` left out because
// the registry it reached did not serve them (other systems' builds of opencode-ai and
// msgpackr-extract). `npm ci` refuses a lockfile without them, on every machine. Each entry gets
// its version and the os/cpu/libc read from its name; no integrity, so npm checks nothing it
// cannot know and fetches it from the registry on the system it is for. Run after `npm install`.
import { readFileSync, writeFileSync } from "node:fs"

const lockUrl = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(lockUrl, "utf8"))
const packages = lock.packages

function platformOf(name) {
  const os = /darwin/.test(name)
    ? "darwin"
    : /win32|windows/.test(name)
      ? "win32"
      : /linux/.test(name)
        ? "linux"
        : undefined
  const cpu = /arm64/.test(name) ? "arm64" : /x64/.test(name) ? "x64" : /-arm\b|-arm$/.test(name) ? "arm" : undefined
  if (!os || !cpu) return undefined
  return { cpu: [cpu], libc: /musl/.test(name) ? ["musl"] : undefined, os: [os] }
}

const added = []
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`
    if (packages[target] || packages[`${path}/${target}`]) continue
    const platform = platformOf(name)
    if (!platform) throw new Error(`${name}: no platform in its name; add it by hand`)
    // npm's own key order, so that a later `npm install` leaves the file as it is
    const { cpu, libc, os } = platform
    packages[target] = { version, cpu, dev: entry.dev || undefined, libc, optional: true, os }
    added.push(`${name}@${version}`)
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
)
lock.packages = sorted
writeFileSync(lockUrl, `${JSON.stringify(lock, null, 2)}\n`)
console.log(added.length ? `added ${added.join(", ")}` : "nothing to add")
