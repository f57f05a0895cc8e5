/**
 * A child process of the membership test between real processes (membership-netns.test.ts):
 *   node --import tsx membership-worker.ts '<json config>'
 * One UDP transport and one composed protocol: SWIM (who is alive), the agreed membership (the
 * views) and the majority election over those views (`awaitView`), wired as the README says, plus
 * SWIM's `dead` verdicts asking the membership to remove the member. A founder starts in view 1;
 * any other id joins through the founders. Prints one JSON line per fact, `{ t, proto, event }`,
 * t on the machine's monotonic clock (comparable across processes), then `READY`. Stdin: a line
 * `leave` leaves gracefully (the agreed view first, then SWIM's announcement, then exit 0 after
 * `closed`); stdin closing stops it at once.
 */

import {
  agreedMembership,
  electionToMembership,
  majorityElection,
  membershipToElection,
  swim,
  swimToMembership,
} from '@sd/election'
import { type Ctx, compose, type NodeId, type Protocol, runProtocol } from '@sd/transport'
import { openFileStorage } from '@sd/transport/storage-file'
import { createUdpTransport } from '@sd/transport/udp'
import { machineNow } from './machine-clock.js'
import { onParentLines, say, workerConfig } from './worker-process.js'

export interface MembershipWorkerConfig {
  id: string
  host: string
  port: number
  /** Every process's 'host:port' (a static address book: the namespaces' addresses are fixed). */
  peers: Record<string, string>
  founders: string[]
  heartbeat: { intervalMs: number; timeoutMs: number }
  swim: { periodMs: number; probeTimeoutMs: number }
  retryMs: number
  /** The state file (terms, views, promises). */
  storage: string
}

const config = workerConfig<MembershipWorkerConfig>()
const self = config.id
const joiner = !config.founders.includes(self)
const line = (proto: string, event: unknown) =>
  say(JSON.stringify({ t: Number(machineNow().toFixed(1)), proto, event }))

const transport = await createUdpTransport({
  id: self,
  bind: { host: config.host, port: config.port },
  peers: config.peers,
})

/**
 * SWIM takes its first group from ctx.peers, which the election needs to hold every process (a
 * view naming an unknown node is refused): SWIM alone starts with `peers` (it reads them only in
 * `start`).
 */
function startingWith<M, R, E>(
  peers: readonly NodeId[],
  protocol: Protocol<M, R, E>,
): Protocol<M, R, E> {
  // Every call, `start` included, runs on one object, so the protocol's fields stay in one place.
  const scoped = Object.create(protocol) as Protocol<M, R, E>
  scoped.start = (ctx: Ctx<M, E>) =>
    protocol.start?.call(scoped, Object.create(ctx, { peers: { value: peers } }) as Ctx<M, E>)
  return scoped
}

const node = compose(
  {
    election: majorityElection({ heartbeat: config.heartbeat, awaitView: true })(self),
    membership: agreedMembership({
      founders: config.founders,
      retryMs: config.retryMs,
    })(self),
    // A founder starts with the other founders as its group; a joiner alone, asking the founders.
    swim: startingWith(
      joiner ? [] : config.founders.filter((id) => id !== self),
      swim({ ...config.swim, ...(joiner ? { seeds: config.founders } : {}) })(self),
    ),
  },
  {
    wiring: [
      { from: 'election', to: 'membership', map: electionToMembership },
      { from: 'membership', to: 'election', map: membershipToElection },
      // SWIM's verdict removes the member from the agreed view (it retries until a view shows it).
      { from: 'swim', to: 'membership', map: swimToMembership },
    ],
  },
)

let leftGroup = false
let swimGone = false
const handle = runProtocol(node, {
  transport,
  members: Object.keys(config.peers),
  storage: openFileStorage(config.storage, { owner: { node: self } }),
  onEvent: ({ proto, event }) => {
    if (proto === 'membership') {
      if (event.type === 'ignored') return
      if (event.type === 'left') leftGroup = true
    } else if (proto === 'swim') {
      if (!['view', 'member-joined', 'member-left', 'refute'].includes(event.type)) return
      if (event.type === 'member-left' && event.node === self) swimGone = true
    } else if (proto === 'election') {
      if (!['leader', 'leader-lost', 'stepped-down', 'candidate'].includes(event.type)) return
    }
    line(proto, event)
  },
})

async function waitFor(done: () => boolean, ms: number) {
  for (let waited = 0; !done() && waited < ms; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The order a member leaves in: the agreed view without it, then SWIM's announcement, then out. */
async function leave() {
  handle.request({ proto: 'membership', req: { type: 'leave' } })
  await waitFor(() => leftGroup, 60_000)
  handle.request({ proto: 'swim', req: { type: 'leave' } })
  await waitFor(() => swimGone, 10_000)
  handle.stop()
  await transport.close()
  line('worker', { type: 'closed', left: leftGroup })
  process.exit(0)
}

line('worker', { type: 'started' })
say('READY')
onParentLines({
  line: (text) => {
    if (text === 'leave') void leave()
  },
  close: async () => {
    handle.stop()
    await transport.close({ graceful: false })
    process.exit(0)
  },
})
