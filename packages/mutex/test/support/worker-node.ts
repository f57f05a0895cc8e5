/**
 * What every lock worker process of the real-process tests shares: its UDP transport on loopback
 * from the parent's config, CLOCK_MONOTONIC stamps (one time base for every process of the
 * machine, so the parent judges them together), and the parent's lines: `go` starts the work,
 * `exit` (or stdin closing) closes the lock and the transport and exits 0, anything else goes to
 * `other`. Prints `READY` once listening, `ERROR <e>` and exits 1 if the work throws.
 */
import { createUdpTransport } from '@sd/transport/udp'
import { onParentLines, say } from '../../../../test-support/worker-process.js'

export interface WorkerNode {
  id: string
  port: number
  peers: Record<string, number>
}

export function workerTransport(config: WorkerNode) {
  return createUdpTransport({
    id: config.id,
    bind: { host: '127.0.0.1', port: config.port },
    peers: Object.fromEntries(
      Object.entries(config.peers).map(([id, p]) => [id, `127.0.0.1:${p}`]),
    ),
  })
}

export const stamp = () => process.hrtime.bigint()
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Prints `ERROR <e>` and exits 1: what a worker does when its work throws. */
export function failWorker(error: unknown): never {
  say(`ERROR ${String(error)}`)
  process.exit(1)
}

export function serveParent(options: {
  work: () => Promise<void>
  /** Closes the lock and the transport. */
  close: () => Promise<void>
  other?: (line: string) => void
}): void {
  const shutdown = async () => {
    await options.close()
    process.exit(0)
  }
  onParentLines({
    line: (line) => {
      if (line === 'go') options.work().catch(failWorker)
      else if (line === 'exit') void shutdown()
      else options.other?.(line)
    },
    close: () => void shutdown(),
  })
  say('READY')
}
