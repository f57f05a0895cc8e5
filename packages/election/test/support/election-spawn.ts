/** Starting election-worker.ts child processes for the multi-process tests. */
import { fileURLToPath } from 'node:url'
import { spawnScript, type Worker } from '../../../../test-support/processes.js'

export { freePorts, type Worker } from '../../../../test-support/processes.js'

const script = fileURLToPath(new URL('./election-worker.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('../..', import.meta.url))

/** Spawns a worker with `config` and pushes it on `into` first (for the caller's cleanup). */
export function spawnWorker(config: Record<string, unknown>, into: Worker[]): Worker {
  return spawnScript(script, packageDir, config, into)
}

/** The worker's current view: its last LEADER / NONE line. */
export function viewOf(w: Worker): { leader: string; term: number; t: number } | undefined {
  for (let i = w.lines.length - 1; i >= 0; i--) {
    const [kind, a, b, c] = w.lines[i]!.split(' ')
    if (kind === 'LEADER') return { leader: a!, term: Number(b), t: Number(c) }
    if (kind === 'NONE') return undefined
  }
  return undefined
}
