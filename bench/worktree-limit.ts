// The parallel bench's arithmetic (issue 40), pure so test/unit can check it: which stories ran one
// after another in the same slot, the limit a run of N slots can reach on this machine, and the
// split of the run's time along the slot that finished last.
import { median } from "./util.js"

/** One story of the parallel run, as the timeline found it (ms after /ralph; NaN: not in the log). */
export interface StoryRun {
  story: string
  /** The worktree it ran in: its own (`story-s1`) before slots, the slot's (`slot-1`) with them. */
  worktree: string
  /** Its worktree was made (or reset) for it. */
  start: number
  /** Marked done in the plan (or merged). */
  end: number
}

/** The stories one slot ran, in order. */
export interface Slot {
  name: string
  stories: string[]
}

/**
 * The slots of a run. With slots, the worktree is the slot: stories are grouped by it. Before slots
 * (one worktree per story, more stories than N), a story took the place of one that had ended: it
 * goes to the slot freed last before it began (or, none free, to a new slot while fewer than N,
 * else to the one that frees first).
 */
export function slotsOf(stories: readonly StoryRun[], slots: number): Slot[] {
  const byStart = [...stories].sort((a, b) => at(a.start) - at(b.start))
  const worktrees = new Set(byStart.map((s) => s.worktree))
  if (worktrees.size <= slots)
    return [...worktrees].map((name) => ({
      name,
      stories: byStart.filter((s) => s.worktree === name).map((s) => s.story),
    }))
  const lanes: Array<Slot & { free: number }> = []
  for (const s of byStart) {
    const start = at(s.start)
    const freed = lanes.filter((l) => l.free <= start).sort((a, b) => b.free - a.free)[0]
    let lane = freed
    if (!lane && lanes.length < slots) {
      lane = { name: `slot ${lanes.length + 1}`, stories: [], free: start }
      lanes.push(lane)
    }
    lane ??= [...lanes].sort((a, b) => a.free - b.free)[0] as Slot & { free: number }
    lane.stories.push(s.story)
    lane.free = Number.isFinite(s.end) ? s.end : start
  }
  return lanes.map(({ name, stories: names }) => ({ name, stories: names }))
}

const at = (ms: number) => (Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY)

export interface MachineLimit {
  /** The slot with the most model time: the sum of its stories' reply delays (ms). */
  longestSlotModelMs: number
  /** The median instance start (a slot's first session asked for → its first model request), ms. */
  instanceStartMs: number
  /** Instance starts one after another: ceil(slots ÷ cores). */
  startWaves: number
  /** longestSlotModelMs + startWaves × instanceStartMs. */
  limitMs: number
}

/**
 * The fastest a run of these slots can be here: the longest slot's model time, plus one instance
 * start per slot spread over the cores (the starts are CPU work; N of them on C cores take
 * ceil(N / C) starts' time).
 */
export function machineLimit(
  slots: readonly Slot[],
  modelMsByStory: Readonly<Record<string, number>>,
  instanceStartsMs: readonly number[],
  cores: number,
): MachineLimit {
  const slotModel = slots.map((s) => s.stories.reduce((sum, story) => sum + (modelMsByStory[story] ?? 0), 0))
  const longestSlotModelMs = slotModel.length ? Math.max(...slotModel) : 0
  const finite = instanceStartsMs.filter(Number.isFinite)
  const instanceStartMs = finite.length ? median(finite) : 0
  const startWaves = Math.ceil(slots.length / Math.max(1, cores))
  return { longestSlotModelMs, instanceStartMs, startWaves, limitMs: longestSlotModelMs + startWaves * instanceStartMs }
}

/** One story's steps (ms; NaN: not in the log, counted as 0). */
export interface StoryPhases {
  story: string
  worktreeAdd: number
  instanceStart: number
  slotReset: number
  firstRequest: number
  modelTime: number
  reportAndWait: number
  merge: number
}

export const PHASES = [
  "worktreeAdd",
  "instanceStart",
  "slotReset",
  "firstRequest",
  "modelTime",
  "reportAndWait",
  "merge",
] as const
export type Phase = (typeof PHASES)[number]

/** The parallel run's time, ms: /ralph → first worktree, each phase summed over one slot's stories, the rest. */
export interface RunSplit {
  slot: string
  stories: string[]
  wallMs: number
  commandMs: number
  phases: Record<Phase, number>
  /** The wall time no phase of that slot covers: waiting for a free slot, the bench's poll, gaps. */
  otherMs: number
}

/**
 * The split of the run's time along the slot whose last story ended last (the one the run waited
 * for): what its stories spent in each phase, added up, and what is left of the wall time.
 */
export function runSplit(
  slots: readonly Slot[],
  phases: readonly StoryPhases[],
  ends: Readonly<Record<string, number>>,
  commandMs: number,
  wallMs: number,
): RunSplit | undefined {
  const lastEnd = (s: Slot) => Math.max(...s.stories.map((story) => ends[story] ?? Number.NaN).filter(Number.isFinite))
  const critical = [...slots].sort((a, b) => lastEnd(b) - lastEnd(a))[0]
  if (!critical) return undefined
  const sums = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>
  for (const story of critical.stories) {
    const p = phases.find((x) => x.story === story)
    if (!p) continue
    for (const phase of PHASES) if (Number.isFinite(p[phase])) sums[phase] += p[phase]
  }
  const command = Number.isFinite(commandMs) ? commandMs : 0
  const covered = command + PHASES.reduce((sum, p) => sum + sums[p], 0)
  return {
    slot: critical.name,
    stories: [...critical.stories],
    wallMs,
    commandMs: command,
    phases: sums,
    otherMs: wallMs - covered,
  }
}
