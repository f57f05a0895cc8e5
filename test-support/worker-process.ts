/**
 * The child's side of a worker process of a test or a benchmark (the parent spawns it with
 * processes.ts `spawnScript`, or bench's LineWorker): its config from the command line, lines to
 * the parent on stdout, and the parent's lines on stdin until stdin closes, which means the
 * parent is done or gone, whatever killed it: the worker ends then and never outlives it.
 *
 * apps/cluster keeps its own loop (src/node/worker.ts): it is runtime code, which does not import
 * the repository's test support.
 */
import { createInterface } from 'node:readline'

/** The config the parent passed as JSON in argv[2]; `fallback` when there is none. */
export function workerConfig<T>(fallback?: T): T {
  const text = process.argv[2]
  if (text === undefined && fallback !== undefined) return fallback
  return JSON.parse(text ?? '') as T
}

/** One line to the parent. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`)
}

/** Each line of stdin to `line`, then `close` once stdin closes (the parent is done or gone). */
export function onParentLines(handlers: {
  line?: (line: string) => void
  close: () => void
}): void {
  const input = createInterface({ input: process.stdin })
  if (handlers.line) input.on('line', handlers.line)
  input.on('close', handlers.close)
}

/**
 * JSON commands, one a line on stdin, handled one after the other in the order they came (a
 * command that fails goes to `failed`, the next one runs); exits 0 when stdin closes.
 */
export function serveJsonCommands<C>(
  handle: (command: C) => Promise<void>,
  failed: (command: C, error: unknown) => void,
): void {
  let queue = Promise.resolve()
  onParentLines({
    line: (line) => {
      const command = JSON.parse(line) as C
      queue = queue.then(() => handle(command)).catch((e: unknown) => failed(command, e))
    },
    close: () => process.exit(0),
  })
}
