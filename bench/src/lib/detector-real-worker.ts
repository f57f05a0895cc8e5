/**
 * A process of the real-process failure-detector benchmark (`election.detector.real.*`):
 *   node --import tsx detector-real-worker.ts '<json config>'
 * Two UDP transports (unreliable: a lost datagram stays lost, as in the simulator), one carrying
 * the simulator bench's all-to-all heartbeats watched by its detectors (detector-heartbeats.ts),
 * the other @sd/election's swim(). Prints one line per verdict, `{"t","s","o","x","on"}` (time
 * on the machine's monotonic clock, setting, observer, target, held), `PAUSE <ms>` after each
 * pause, and `READY` once bound.
 * With `pauses`, blocks its own event loop 50-200 ms every 2-6 s (seeded), as the simulator's
 * pause condition does (detector-run.ts). Ends when stdin closes: it never outlives the bench.
 */
import { type SwimEvent, type SwimMessage, swim } from '@sd/election'
import { createRandom, runProtocol } from '@sd/transport'
import { createUdpTransport } from '@sd/transport/udp'
import { machineNow } from '../../../test-support/machine-clock.js'
import { onParentLines, say, workerConfig } from '../../../test-support/worker-process.js'
import { type HeartbeatSetting, heartbeatMonitor } from './detector-heartbeats.js'
import { PAUSES } from './detector-run.js'

export interface DetectorWorkerConfig {
  /** The node's number (0..n-1): the detectors index their tables by it. */
  id: number
  host: string
  /** Every node's host, by number; heartbeats on `hbPort`, SWIM on `swimPort`. */
  hosts: string[]
  hbPort: number
  swimPort: number
  intervalMs: number
  settings: HeartbeatSetting[]
  swim: { periodMs: number; suspicionMult: number }
  /** Setting numbers of SWIM's verdicts: suspected (or dead), and dead. */
  swimSettings: { suspect: number; dead: number }
  pauses: boolean
  seed: string
}

// Whatever happens, the process ends: no trial lasts this long.
setTimeout(() => process.exit(3), 10 * 60 * 1000).unref()

const config = workerConfig<DetectorWorkerConfig>()
const self = config.id
const n = config.hosts.length
const ids = Array.from({ length: n }, (_, i) => i)
const log = (s: number, o: number, x: number, on: boolean) =>
  say(JSON.stringify({ t: Number(machineNow().toFixed(1)), s, o, x, on }))

const open = <M>(port: number) =>
  createUdpTransport<M>({
    id: self,
    bind: { host: config.host, port },
    peers: ids.filter((i) => i !== self).map((i) => [i, `${config.hosts[i]}:${port}`] as const),
    reliable: false,
  })
const monitor = heartbeatMonitor(
  {
    intervalMs: config.intervalMs,
    settings: config.settings,
    phiWindow: 200,
    phiMinStdDevMs: 25,
    tracker: { set: (s, o, x, on) => log(s, o, x, on) },
  },
  n,
)
/** The heartbeat monitor's message type (it does not export it). */
type Heartbeat = Parameters<ReturnType<typeof monitor>['onMessage']>[1]
const hbTransport = await open<Heartbeat>(config.hbPort)
const swimTransport = await open<SwimMessage>(config.swimPort)

const hb = runProtocol(monitor(self), {
  transport: hbTransport,
  members: ids,
  random: `${config.seed}/hb/${self}`,
})

const { suspect, dead } = config.swimSettings
const sw = runProtocol(swim(config.swim)(self), {
  transport: swimTransport,
  members: ids,
  random: `${config.seed}/swim/${self}`,
  onEvent: (event: SwimEvent) => {
    if (event.type !== 'suspect' && event.type !== 'dead' && event.type !== 'alive') return
    const target = event.node as number
    log(suspect, self, target, event.type !== 'alive')
    if (event.type !== 'suspect') log(dead, self, target, event.type === 'dead')
  },
})

/** A stop-the-world pause: the event loop runs nothing meanwhile, as in a long GC. */
function busyWait(ms: number) {
  const until = performance.now() + ms
  while (performance.now() < until) {}
}
if (config.pauses) {
  const rnd = createRandom(`${config.seed}/pauses/${self}`)
  const next = (delay: number) =>
    setTimeout(() => {
      const ms = rnd.int(...PAUSES.length)
      busyWait(ms)
      say(`PAUSE ${ms}`)
      next(rnd.int(...PAUSES.every))
    }, delay).unref()
  next(rnd.int(...PAUSES.first))
}

say('READY')
onParentLines({
  close: async () => {
    hb.stop()
    sw.stop()
    await Promise.all([hbTransport.close(), swimTransport.close()])
    process.exit(0)
  },
})
