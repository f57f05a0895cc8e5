/** The benchmark's handle on one election worker process (see election-worker.ts). */
import { fileURLToPath } from 'node:url'
import type { WorkerCommand, WorkerEvent } from './election-protocol.js'
import { LineWorker, nodeArgs } from './line-worker.js'

export { killAllWorkersSync } from './line-worker.js'

const workerFile = fileURLToPath(new URL('./election-worker.ts', import.meta.url))

export class ElectionWorker extends LineWorker<WorkerCommand, WorkerEvent> {
  /** On loopback, or inside `namespace` (`ip netns exec` execs node: the pid is node's own). */
  constructor(namespace?: string) {
    const [node, ...args] = nodeArgs(workerFile)
    if (namespace) super('ip', ['netns', 'exec', namespace, node!, ...args], 'election worker')
    else super(node!, args, 'election worker')
  }

  /** The first event of `trial` of `kind` (or 'failed'), or undefined after `timeoutMs`. */
  waitForTrial(trial: number, kind: WorkerEvent['event'], timeoutMs: number) {
    return this.waitFor(
      (e) => 'trial' in e && e.trial === trial && (e.event === kind || e.event === 'failed'),
      timeoutMs,
    )
  }
}
