// `npm run docs`: writes docs/configuration.md from the settings schema in dist/ (run after the build).
import { writeFileSync } from "node:fs"
import { configurationReference } from "../dist/config/reference.js"

writeFileSync(new URL("../docs/configuration.md", import.meta.url), configurationReference())
