// Kill points 13 to 23 (test/e2e/kill-points.ts): from the new session of a recreate restart to the
// loop's completion, and the restart of strategy continue. The first 12 are in kill-points.e2e.test.ts.
import { describeKillPoints, POINTS } from "./kill-points.js"

describeKillPoints(POINTS.slice(12))
