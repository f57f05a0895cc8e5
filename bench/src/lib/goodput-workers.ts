/** The benchmark's handle on a goodput worker process running inside a network namespace. */
import { fileURLToPath } from 'node:url'
import type { WorkerCommand, WorkerEvent } from './goodput-protocol.js'
import { LineWorker, nodeArgs } from './line-worker.js'

export { killAllWorkersSync } from './line-worker.js'

const workerFile = fileURLToPath(new URL('./goodput-worker.ts', import.meta.url))

export class NsWorker extends LineWorker<WorkerCommand, WorkerEvent> {
  constructor(namespace: string, role: 'sender' | 'receiver', self: string, peer: string) {
    // `ip netns exec` enters the namespace and execs node: the pid is node's own.
    super(
      'ip',
      ['netns', 'exec', namespace, ...nodeArgs(workerFile), role, self, peer],
      'goodput worker',
    )
  }
}
