// The one reader of loop state files (`<folder>/.opencode/ralph-loop/loops/*.json`): which entries
// are state files — regular `*.json` files only, never a link, a FIFO or a folder (lstat, then
// readRegularFile) — and how a file's text becomes a loop (JSON, then the plugin's schema,
// src/store/loop-schema.ts). /ralph-status, the worktree watch, the store at start-up and the
// `ralph-loop` commands (status, clean, checkpoints, worktrees) all read them here. Read-only, and
// it never throws: a file that cannot be read or fails the schema is left out (LoopStore.load
// reports those at start-up), or listed as such for whoever asks (`readLoopFiles`).
import { lstatSync, readdirSync, type Stats } from "node:fs"
import { lstat, readdir } from "node:fs/promises"
import { join } from "node:path"
import type { z } from "zod"
import { loopFromState, type Loop } from "../loop/loop.js"
import { persistedLoopSchema } from "./loop-schema.js"
import { readRegularFile, readRegularFileSync } from "../files/regular-file.js"

export interface SavedLoop {
  loop: Loop
  /** When its file was last written: for a stopped loop, when it ended. */
  savedAt: number
}

/**
 * A state file's data, checked with `schema` (the whole file, or the fields a reader needs); throws when it is not one.
 */
export function parseStateFile<S extends z.ZodType<{ savedAt: string; loop: unknown }>>(
  text: string,
  schema: S,
): z.output<S> {
  return schema.parse(JSON.parse(text))
}

/** When the file was saved: its `savedAt`, or the loop's start when that is not a date. */
export const savedAtOf = (data: { savedAt: string; loop: { startedAt: number } }): number => {
  const savedAt = Date.parse(data.savedAt)
  return Number.isNaN(savedAt) ? data.loop.startedAt : savedAt
}

/** A state file's text as a saved loop; undefined when it is not one. */
export function parseSavedLoop(text: string): SavedLoop | undefined {
  try {
    const data = parseStateFile(text, persistedLoopSchema)
    return { loop: loopFromState(data.loop), savedAt: savedAtOf(data) }
  } catch {
    return undefined
  }
}

/** An entry of a loops folder: a state file, or a damaged one the store moved aside (`<name>.corrupt-<time>`). */
export interface LoopsFolderEntry {
  name: string
  file: string
  /** lstat's: a link's own time, never its target's. */
  writtenAt: number
}

const isStateName = (name: string): boolean => name.endsWith(".json")
/** What LoopStore.moveAside names a damaged state file. */
const isAsideName = (name: string): boolean => name.includes(".json.corrupt-")

/**
 * The state files in `loopsDir` (regular `*.json` files; a link, FIFO or folder of that name is not
 * one) and the damaged files moved aside (files or links, whatever they point to). Empty when the
 * folder is missing.
 */
export async function listLoopsFolder(
  loopsDir: string,
): Promise<{ state: LoopsFolderEntry[]; aside: LoopsFolderEntry[] }> {
  const names = await readdir(loopsDir).catch(() => [] as string[])
  const entries = await Promise.all(
    names
      .filter((name) => isStateName(name) || isAsideName(name))
      .map(async (name) => {
        const file = join(loopsDir, name)
        const info = await lstat(file).catch(() => undefined)
        return info
          ? { name, file, writtenAt: info.mtimeMs, regular: info.isFile(), link: info.isSymbolicLink() }
          : undefined
      }),
  )
  const state: LoopsFolderEntry[] = []
  const aside: LoopsFolderEntry[] = []
  for (const e of entries) {
    if (!e) continue
    const entry = { name: e.name, file: e.file, writtenAt: e.writtenAt }
    if (isAsideName(e.name)) {
      if (e.regular || e.link) aside.push(entry)
    } else if (e.regular) state.push(entry)
  }
  return { state, aside }
}

export interface SavedLoopFile extends SavedLoop {
  file: string
}

/**
 * Every state file in `loopsDir`: the loops, newest first, the files that are not one (with why), and the damaged ones
 * moved aside.
 */
export async function readLoopFiles(loopsDir: string): Promise<{
  loops: SavedLoopFile[]
  unreadable: Array<{ file: string; message: string }>
  aside: LoopsFolderEntry[]
}> {
  const { state, aside } = await listLoopsFolder(loopsDir)
  const loops: SavedLoopFile[] = []
  const unreadable: Array<{ file: string; message: string }> = []
  const read = await Promise.all(state.map(async ({ file }) => ({ file, read: await readRegularFile(file) })))
  for (const { file, read: text } of read) {
    const saved = text.ok ? parseSavedLoop(text.text) : undefined
    if (saved) loops.push({ ...saved, file })
    else unreadable.push({ file, message: text.ok ? "is not a loop's state (it fails the schema)" : text.message })
  }
  return { loops: loops.sort((a, b) => b.savedAt - a.savedAt), unreadable, aside }
}

/** The `limit` most recently written loops in `loopsDir`, newest first. */
export async function readNewestLoops(loopsDir: string, limit: number): Promise<SavedLoop[]> {
  const { state } = await listLoopsFolder(loopsDir)
  const newest = state.sort((a, b) => b.writtenAt - a.writtenAt).slice(0, limit)
  const loops = await Promise.all(
    newest.map(({ file }) => readRegularFile(file).then((read) => (read.ok ? parseSavedLoop(read.text) : undefined))),
  )
  return loops.filter((l) => l !== undefined).sort((a, b) => b.savedAt - a.savedAt)
}

/**
 * Every loop in `loopsDir` as `parse` reads it, newest first. Synchronous: for the `ralph-loop`
 * command, a process of its own, where it is faster than reading 1,000 files side by side (never
 * call it inside OpenCode: it would block the event path).
 */
export function readLoopsSync<T extends { savedAt: number }>(
  loopsDir: string,
  parse: (text: string) => T | undefined,
): T[] {
  let names: string[]
  try {
    names = readdirSync(loopsDir).filter(isStateName)
  } catch {
    return []
  }
  const loops: T[] = []
  for (const name of names) {
    const file = join(loopsDir, name)
    // lstat first: the common case (a link, a folder) costs no open.
    let info: Stats
    try {
      info = lstatSync(file)
    } catch {
      continue
    }
    if (!info.isFile()) continue
    const read = readRegularFileSync(file)
    const saved = read.ok ? parse(read.text) : undefined
    if (saved) loops.push(saved)
  }
  return loops.sort((a, b) => b.savedAt - a.savedAt)
}
