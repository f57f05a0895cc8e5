/**
 * A child process of the multi-process election test:
 *   node --import tsx election-worker.ts '<json config>'
 * config: { id, host?, port, peers: { id: port | 'host:port' }, algorithm: 'bully' | 'majority',
 * intervalMs, timeoutMs, storage }. Binds a UDP transport on host:port (default 127.0.0.1), runs the election with a file store at
 * `storage`, prints `READY`, then one line per change of view: `LEADER <leader> <term> <t>` or
 * `NONE <term> <t>`, where t is the machine's monotonic clock in ms (comparable across processes).
 * Stays up until stdin closes.
 */
import { openFileStorage } from '@sd/transport/storage-file'
import { createUdpTransport } from '@sd/transport/udp'
import { machineNow } from '../../../../test-support/machine-clock.js'
import { onParentLines, say, workerConfig } from '../../../../test-support/worker-process.js'
import { createElection } from '../../src/api/index.js'
import { bully } from '../../src/bully/index.js'
import { majorityElection } from '../../src/majority/index.js'

interface Config {
  id: string
  host?: string
  port: number
  /** A port on loopback, or 'host:port'. */
  peers: Record<string, number | string>
  algorithm: 'bully' | 'majority'
  intervalMs: number
  timeoutMs: number
  storage: string
}

const config = workerConfig<Config>()
const transport = await createUdpTransport({
  id: config.id,
  bind: { host: config.host ?? '127.0.0.1', port: config.port },
  peers: Object.fromEntries(
    Object.entries(config.peers).map(([id, p]) => [
      id,
      typeof p === 'number' ? `127.0.0.1:${p}` : p,
    ]),
  ),
})
const heartbeat = { intervalMs: config.intervalMs, timeoutMs: config.timeoutMs }
const algorithm =
  config.algorithm === 'majority' ? majorityElection({ heartbeat }) : bully({ heartbeat })
const report = (view: { leader: unknown; term: number } | undefined) => {
  if (view) say(`LEADER ${String(view.leader)} ${view.term} ${machineNow().toFixed(1)}`)
  else say(`NONE ${election.term()} ${machineNow().toFixed(1)}`)
}
const election = createElection({
  transport,
  algorithm: algorithm as Parameters<typeof createElection>[0]['algorithm'],
  members: Object.keys(config.peers),
  storage: openFileStorage(config.storage, { owner: { node: config.id } }),
  // Attached before the protocol starts: a member with no better candidate wins at once.
  onLeaderChange: report,
})
say('READY')
onParentLines({
  close: async () => {
    await election.close()
    await transport.close({ graceful: false })
    process.exit(0)
  },
})
