// Kill OpenCode (SIGKILL, nothing flushed) at named points of a running loop — from the start of a
// loop through a full `recreate` restart to its completion, and mid-write of the state files — then
// start it again on the same data. The loop must finish with its counts intact (2 iterations, 1
// restart), with one session, one summary paid for and one prompt per iteration: never a second
// live loop, never a lost or repeated step, never a state-file complaint for a crash it survived.
import { describeKillPoints, POINTS } from "./kill-points.js"

// The first 12 kill points (up to the new session of the recreate restart); the rest are in
// kill-points-late.e2e.test.ts, so that two workers share them.
describeKillPoints(POINTS.slice(0, 12))
