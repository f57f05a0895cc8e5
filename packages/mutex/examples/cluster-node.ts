/**
 * One member of a deployed group (the election README's "A deployment"): run
 *   npx tsx cluster-node.ts '{"id":"n1","port":47331,"founders":["n1","n2","n3"],
 *     "seeds":{"n2":"127.0.0.1:47332","n3":"127.0.0.1:47333"},"key":"a shared key of 16+ bytes","dir":"/tmp/sd"}'
 * It joins the group (a founder starts in view 1; any other id joins through its seeds), runs the
 * majority election over the agreed membership's views (the leader removes a member silent for
 * 1.5 s) and the centralized lock coordinated by the elected leader on one transport, adds 1 to a
 * shared counter file under the lock (refusing a fencing token not above the last one) again and
 * again, and on SIGTERM leaves the group: it stops locking, asks to leave, waits for a committed
 * view without it, then stops and closes its transport. It prints one JSON line per fact (view,
 * leader, member-silent, acquired, released, left).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  agreedMembership,
  electionToMembership,
  majorityElection,
  membershipToElection,
} from '@sd/election'
import { centralized, electionToLock } from '@sd/mutex'
import { compose, type NodeId, runProtocol } from '@sd/transport'
import { openFileStorage } from '@sd/transport/storage-file'
import { createUdpTransport } from '@sd/transport/udp'

interface NodeConfig {
  id: string
  port: number
  /** View 1 of the group; an id not listed here is a joiner. */
  founders: string[]
  /** Whom this node can reach at start: id -> 'host:port' (some may not be up yet). */
  seeds: Record<string, string>
  /** The group's key (16+ bytes): only holders get a datagram accepted, so only they can join. */
  key: string
  /** Where the state file and the shared counter live. */
  dir: string
}

const config = JSON.parse(process.argv[2] ?? '') as NodeConfig
const { id: self, founders, dir } = config
const joiner = !founders.includes(self)
const address = `127.0.0.1:${config.port}` // where the others reach this node
const seedIds = Object.keys(config.seeds)
// A system-wide monotonic clock (CLOCK_MONOTONIC on Linux), so lines of all processes compare.
const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6
const say = (event: object) =>
  process.stdout.write(`${JSON.stringify({ node: self, t: monotonicMs(), event })}\n`)

// `admit`: the members learn a joiner's address from its first datagram (the key checks it).
const transport = await createUdpTransport({
  id: self,
  bind: { host: '127.0.0.1', port: config.port },
  key: config.key,
  admit: () => true,
})
for (const [peer, address] of Object.entries(config.seeds)) transport.setPeer(peer, address)

const node = compose(
  {
    lock: centralized({ leaseMs: 1000, leaderLease: true })(self),
    // Before the membership: the view it installs at start is the election's first request.
    // `awaitView`: it counts the agreed view, and takes no part until a view names this node.
    // `silentAfterMs`: the leader reports a member that acknowledged nothing for 1.5 s.
    election: majorityElection({
      heartbeat: { intervalMs: 100, timeoutMs: 500 },
      awaitView: true,
      silentAfterMs: 1500,
    })(self),
    // `address`: a joiner's JOIN carries it into the views, so every member can reach it.
    membership: agreedMembership({ founders, seeds: joiner ? seedIds : founders, address })(self),
  },
  {
    wiring: [
      // The elected leader coordinates the lock.
      { from: 'election', to: 'lock', map: electionToLock },
      // The leader drives the view changes, and a member it reports silent is removed.
      { from: 'election', to: 'membership', map: electionToMembership },
      // The election counts over the agreed view: a joiner takes part once a view has it, a
      // member that left or was removed none after (a leader out of the view steps down).
      { from: 'membership', to: 'election', map: membershipToElection },
    ],
  },
)

let members: NodeId[] = []
let inGroup = false
let stopping = false
let leftGroup = false
let closed = false
let holding = false
let asked = false

const handle = runProtocol(node, {
  transport,
  members: [...new Set([self, ...founders, ...seedIds])],
  storage: openFileStorage(join(dir, `${self}.json`), { owner: { node: self } }),
  onEvent: ({ proto, event }) => {
    if (proto === 'membership' && event.type === 'view') {
      // The address book follows the view: forget who left (their room for learned peers too),
      // a little later, so the announcement of this view still reaches them.
      for (const gone of event.left) {
        if (gone !== self) setTimeout(() => forget(gone), 3_000).unref()
      }
      // ...and learns the members it cannot reach yet from the addresses the view carries.
      for (const { id, address } of event.addresses ?? []) {
        if (id !== self && !transport.peers.includes(id)) transport.setPeer(id, address)
      }
      members = event.members
      inGroup = members.includes(self)
      say(event)
      if (inGroup && !stopping && !holding) setTimeout(acquire, 0) // not from inside a step
    } else if (proto === 'membership' && event.type === 'left') {
      say(event)
      leftGroup = true
    } else if (
      proto === 'membership' &&
      (event.type === 'acknowledged' || event.type === 'committed')
    ) {
      say(event) // what checkViews reads: who acknowledged each view before it was installed
    } else if (
      proto === 'election' &&
      (event.type === 'leader' || event.type === 'leader-lost' || event.type === 'member-silent')
    ) {
      say(event)
    } else if (proto === 'lock' && event.type === 'acquired') {
      say(event)
      holding = true
      work(event.token)
    } else if (
      proto === 'lock' &&
      (event.type === 'lease-renewed' || event.type === 'lease-lost')
    ) {
      say(event) // what checkMutualExclusion reads beside acquired / released
    } else if (proto === 'lock' && event.type === 'released') {
      say(event)
      holding = false
      asked = false
      if (!stopping) setTimeout(acquire, 50)
    }
  },
})

/** Forgets a member that left, unless a later view has it again (a rejoin). */
function forget(id: NodeId) {
  if (!members.includes(id) && !stopping) transport.removePeer(id)
}

function acquire() {
  if (asked || stopping || closed || !inGroup) return
  asked = true
  handle.request({ proto: 'lock', req: { type: 'acquire' } })
}

/** The locked work: the counter file refuses a token not above the last one it saw (fencing). */
function work(token: number) {
  const file = join(dir, 'counter.json')
  const counter = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { value: number; token: number })
    : { value: 0, token: 0 }
  if (token > counter.token) {
    // Written aside, then renamed over the file: a holder killed mid-write (the test kills the
    // leader while it holds the lock) leaves the old file whole, never a torn one.
    const aside = `${file}.${self}.tmp`
    writeFileSync(aside, JSON.stringify({ value: counter.value + 1, token }))
    renameSync(aside, file)
  } else say({ type: 'fenced', token, last: counter.token })
  setTimeout(() => {
    if (!closed) handle.request({ proto: 'lock', req: { type: 'release' } })
  }, 20)
}

/** Resolves once `done()` holds, or after `ms` at most (a shutdown must end). */
async function waitFor(done: () => boolean, ms: number) {
  for (let waited = 0; !done() && waited < ms; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

process.once('SIGTERM', async () => {
  stopping = true
  // 1. No new entries; the one in progress (or asked for) ends and is given back.
  await waitFor(() => !holding && !asked, 5_000)
  // 2. Leave, announced, unless this is the last member: wait for a committed view without it.
  if (inGroup && members.some((m) => m !== self)) {
    handle.request({ proto: 'membership', req: { type: 'leave' } })
    await waitFor(() => leftGroup, 10_000)
  }
  // 3. Stop the protocols (lock, membership, election), then the transport.
  closed = true
  handle.stop()
  await transport.close()
  say({ type: 'closed' })
  process.exit(0)
})
