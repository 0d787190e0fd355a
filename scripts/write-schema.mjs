// Writes ralph-loop.schema.json from the zod schema in dist/ (run `npm run build` first).
import { writeFileSync } from "node:fs"
import { settingsJsonSchema } from "../dist/config/schema.js"

writeFileSync(new URL("../ralph-loop.schema.json", import.meta.url), `${JSON.stringify(settingsJsonSchema(), null, 2)}\n`)
