/** Starting lock-worker.ts child processes for the multi-process tests. */
import { fileURLToPath } from 'node:url'
import { spawnScript, type Worker } from '../../../../test-support/processes.js'

export { freePorts, type Worker } from '../../../../test-support/processes.js'

const script = fileURLToPath(new URL('./lock-worker.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('../..', import.meta.url))

/** Spawns a worker with `config` and pushes it on `into` first (for the caller's cleanup). */
export function spawnWorker(config: Record<string, unknown>, into: Worker[]): Worker {
  return spawnScript(script, packageDir, config, into)
}

/** The first line starting with `prefix`, if any. */
export const lineWith = (w: Worker, prefix: string) => w.lines.find((l) => l.startsWith(prefix))
