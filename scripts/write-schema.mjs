// Writes ralph-loop.schema.json (the settings), docs/status.schema.json (`ralph-loop status
// --json`) and docs/run-events.schema.json (`ralph-loop run --json`, one event per line) from the
// zod schemas in dist/ (run `npm run build` first).
import { writeFileSync } from "node:fs"
import { z } from "zod"
import { settingsJsonSchema } from "../dist/config/schema.js"
import { runEventSchema } from "../dist/cli/run/events.js"
import { statusDocumentSchema } from "../dist/status/document.js"

writeFileSync(
  new URL("../ralph-loop.schema.json", import.meta.url),
  `${JSON.stringify(settingsJsonSchema(), null, 2)}\n`,
)
writeFileSync(
  new URL("../docs/status.schema.json", import.meta.url),
  `${JSON.stringify(z.toJSONSchema(statusDocumentSchema), null, 2)}\n`,
)
writeFileSync(
  new URL("../docs/run-events.schema.json", import.meta.url),
  `${JSON.stringify(z.toJSONSchema(runEventSchema), null, 2)}\n`,
)
