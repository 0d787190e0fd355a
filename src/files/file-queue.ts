// Changes of one file, one at a time across every plugin instance of the OpenCode process: the
// project's instance and the instances of its worktrees all read-modify-write the project's
// memory.md and progress.md. The queue is keyed by the file's absolute path and kept on globalThis,
// so two copies of this module (a worktree loading the plugin by another path) still share it.
import { resolve } from "node:path"

const QUEUES = Symbol.for("ralph-loop.file-queues")

type Queues = Map<string, Promise<unknown>>

function queues(): Queues {
  const holder = globalThis as { [QUEUES]?: Queues }
  holder[QUEUES] ??= new Map()
  return holder[QUEUES]
}

/** Runs `work` once every earlier work on `file` in this process has ended (failed or not). */
export function inFileQueue<T>(file: string, work: () => Promise<T>): Promise<T> {
  const all = queues()
  const key = resolve(file)
  const next = (all.get(key) ?? Promise.resolve()).then(work)
  const tail = next.then(
    () => undefined,
    () => undefined,
  )
  all.set(key, tail)
  // Nothing waits on an idle file: its entry goes, so the map holds only files being changed.
  void tail.then(() => {
    if (all.get(key) === tail) all.delete(key)
  })
  return next
}
