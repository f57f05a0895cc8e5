/** The benchmark's handle on one mutex worker process (see mutex-worker.ts). */
import { fileURLToPath } from 'node:url'
import { LineWorker, nodeArgs } from './line-worker.js'
import type { WorkerCommand, WorkerEvent } from './mutex-protocol.js'

export { killAllWorkersSync } from './line-worker.js'

const workerFile = fileURLToPath(new URL('./mutex-worker.ts', import.meta.url))

export class MutexWorker extends LineWorker<WorkerCommand, WorkerEvent> {
  constructor() {
    const [node, ...args] = nodeArgs(workerFile)
    super(node!, args, 'mutex worker')
  }

  /** The first event of `trial` of `kind` (or 'failed'), or undefined after `timeoutMs`. */
  waitForTrial(trial: number, kind: WorkerEvent['event'], timeoutMs: number) {
    return this.waitFor(
      (e) => e.trial === trial && (e.event === kind || e.event === 'failed'),
      timeoutMs,
    )
  }
}
