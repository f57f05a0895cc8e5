/**
 * One node of the cluster, as an OS process:
 *   node --import tsx worker.ts '<NodeConfig as JSON>'
 * One UDP transport, one composed protocol (election + lock + time sync, see protocol.ts) with its
 * durable state in a file, and the workload: take the lock, read the fenced counter, spend a
 * moment inside the critical section, write the value plus one, release; again and again.
 *
 * The node deliberately does not check its lease before it writes (a paused process cannot): the
 * counter's fencing is what keeps a late writer out. It talks to the parent in JSON lines
 * (wire.ts) and exits when its stdin closes, so it never outlives the parent.
 *
 * Its own stdin loop, not test-support/worker-process.ts: this is runtime code (`pnpm cluster`),
 * which must not import the repository's test support.
 */
import { createInterface } from 'node:readline'
import { runProtocol, type Transport } from '@sd/transport'
import { openFileStorage } from '@sd/transport/storage-file'
import { createUdpTransport } from '@sd/transport/udp'
import {
  LINK_INITIAL_RTO_MS,
  machineNow,
  type NodeConfig,
  type NodeLine,
  type ParentLine,
  parseLine,
} from '../wire.js'
import { countedTransport } from './counted.js'
import { clusterNode, nodeClock } from './protocol.js'

const config = JSON.parse(process.argv[2] ?? '') as NodeConfig
const self = config.id
// Whatever happens, this process ends.
setTimeout(() => process.exit(3), config.maxLifetimeMs).unref()

const say = (line: NodeLine) => process.stdout.write(`${JSON.stringify(line)}\n`)
const fail = (error: unknown) => {
  say({
    k: 'error',
    t: machineNow(),
    message: String((error instanceof Error ? error.stack : undefined) ?? error),
  })
  process.exit(1)
}
process.on('uncaughtException', fail)
process.on('unhandledRejection', fail)

// The file records whose state it is: another node's file is refused (ERR_STORAGE_OWNER).
const storage = openFileStorage(config.storage, { owner: { node: self } })
const loaded = storage.load()
/** What the file held at boot, for the parent's durable-state check; the protocols validate it. */
const num = (key: string) => {
  const v = loaded.get(key)
  return typeof v === 'number' ? v : 0
}
const stored = { term: num('election/term'), boots: num('lock/boots'), lockTerm: num('lock/term') }

const me = config.members[self]!
const udp = await createUdpTransport<unknown>({
  id: self,
  bind: { host: me.host, port: me.port },
  peers: Object.fromEntries(
    Object.entries(config.members)
      .filter(([id]) => id !== self)
      .map(([id, a]) => [id, `${a.host}:${a.port}`]),
  ),
  retransmit: { initialRtoMs: LINK_INITIAL_RTO_MS },
})

/** With `--trace`, every message carries the sender's sequence number, so sends meet deliveries. */
function traced(inner: Transport<unknown>): Transport<unknown> {
  // Unique across incarnations of the node: a restarted node does not reuse its old numbers.
  let seq = process.pid * 10_000_000
  return {
    self: inner.self,
    get closed() {
      return inner.closed
    },
    send(to, msg) {
      seq++
      say({ k: 'send', t: machineNow(), to: String(to), seq, msg })
      inner.send(to, { s: seq, m: msg })
    },
    onMessage: (handler) =>
      inner.onMessage((from, raw) => {
        // A peer's envelope `{ s, m }`, as `send` wraps it; anything else carries nothing.
        const env = typeof raw === 'object' && raw !== null ? raw : {}
        if ('s' in env && typeof env.s === 'number')
          say({ k: 'deliver', t: machineNow(), from: String(from), seq: env.s })
        handler(from, 'm' in env ? env.m : undefined)
      }),
    onSignal: (handler) => inner.onSignal?.(handler) ?? (() => {}),
    close: () => inner.close(),
  }
}

// The machine's clock as Unix time, the same in every node: its monotonic clock plus one offset
// the parent read.
const machineWall = () => machineNow() + config.wallOffsetMs
// The hardware clock of this node: the machine's, off by `skewMs`, and stepped by the parent's
// `clock-step` lines (the clock-step fault; the system clock is never touched). The software
// clock that the time sync disciplines reads it. It is the node's wall clock, `ctx.now()`.
let steppedMs = 0
const hardware = { now: () => machineWall() + config.skewMs + steppedMs }
// The monotonic clock (leases, timeouts): the machine's, from the run's origin; never stepped.
const monotonic = { now: () => machineNow() - config.originMs }
const clock = nodeClock()

let leader: string | undefined
let held: number | undefined
let waiting: ((token: number) => void) | undefined

/**
 * The events the parent hears of (every event with --trace): what the view shows, and what the
 * summary's checkers judge: `leader` / `leader-lost` / `stepped-down` / `lease` (who leads, and
 * until when its lease runs), `acquired` / `lease-renewed` / `released` / `lease-lost` (who holds
 * the lock, and until when its lease is valid).
 */
const REPORTED: Record<string, ReadonlySet<string>> = {
  election: new Set(['leader', 'leader-lost', 'candidate', 'stepped-down', 'lease']),
  lock: new Set([
    'acquired',
    'lease-renewed',
    'released',
    'lease-lost',
    'coordinator-changed',
    'granted',
    'recovered',
    'lease-expired',
  ]),
  sync: new Set(['adjusted', 'berkeley-round']),
}

// Counted outermost, so that a send is reported before it reaches the socket (counted.ts).
const counted = countedTransport(config.trace ? traced(udp) : udp, () => stats())

/**
 * When the running step began. Its events leave when it ends, and a SIGSTOP can fall in between:
 * stamped when they leave, a grant decided before a pause (its lease valid then) would look as if
 * it were made after the resume, overlapping the next term's holders. Events carry the time their
 * step ran instead, which is when they were decided.
 */
let stepAt: number | undefined
const handle = runProtocol(clusterNode(self, config.timings, clock), {
  transport: counted.transport,
  members: Object.keys(config.members),
  clock: hardware,
  monotonic,
  storage,
  observer: {
    onInput() {
      stepAt = machineNow()
    },
  },
  onEvent(composed) {
    if (composed.proto === 'election') {
      const { event } = composed
      if (event.type === 'leader') leader = String(event.leader)
      else if (event.type === 'leader-lost') leader = undefined
    } else if (composed.proto === 'lock') {
      const { event } = composed
      if (event.type === 'acquired') {
        held = event.token
        const resolve = waiting
        waiting = undefined
        if (resolve !== undefined) resolve(held)
        else {
          // A grant that came after the workload stopped waiting for it: given back at once.
          queueMicrotask(() => handle.request({ proto: 'lock', req: { type: 'release' } }))
        }
      } else if (event.type === 'released' && event.token === held) held = undefined
    }
    const { proto, event } = composed
    if (config.trace || REPORTED[proto]?.has(event.type)) {
      say({ k: 'ev', t: stepAt ?? machineNow(), p: proto, e: { ...event } })
    }
  },
  onError: fail,
})

/** The node's counters and clock, for the parent (before each send, too: counted.ts). */
function stats(): void {
  const s = udp.stats
  say({
    k: 'stats',
    t: machineNow(),
    sent: counted.counts.sent,
    delivered: counted.counts.delivered,
    retransmissions: s.retransmissions,
    resent: s.resentAfterRestart,
    dropped: s.droppedTotal,
    unreachable: s.peersUnreachable,
    clockMs: clock.read(hardware.now()) - machineWall(),
  })
}
setInterval(stats, 300).unref()

// ---- the workload ---------------------------------------------------------------------------

let opSeq = 0
const answers = new Map<number, (res: Extract<ParentLine, { k: 'res' }>) => void>()
const op = (kind: 'read' | 'write', token: number, value?: number) =>
  new Promise<Extract<ParentLine, { k: 'res' }>>((resolve) => {
    const id = ++opSeq
    answers.set(id, (res) => {
      say({
        k: 'done',
        t: machineNow(),
        op: id,
        ok: res.ok,
        token,
        ...(res.ok ? { value: res.value } : {}),
      })
      resolve(res)
    })
    if (kind === 'read') say({ k: 'op', t: machineNow(), op: id, kind, token })
    else say({ k: 'op', t: machineNow(), op: id, kind, token, value: value! })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
let stopping = false
let stopped: () => void = () => {}
const whenStopped = new Promise<'stop'>((resolve) => {
  stopped = () => resolve('stop')
})

let acquiring: number | undefined
/** Asks for the lock; the `acquired` event completes it. Every operation is in the history. */
const acquire = () =>
  new Promise<number>((resolve) => {
    const id = ++opSeq
    acquiring = id
    say({ k: 'invoke', t: machineNow(), op: id, kind: 'acquire' })
    waiting = (token) => {
      acquiring = undefined
      say({ k: 'done', t: machineNow(), op: id, ok: true, token })
      resolve(token)
    }
    handle.request({ proto: 'lock', req: { type: 'acquire' } })
  })

/** Gives the lock back: a local request, done in the step that emits `released`. */
const release = (token: number) => {
  const id = ++opSeq
  say({ k: 'invoke', t: machineNow(), op: id, kind: 'release', token })
  handle.request({ proto: 'lock', req: { type: 'release' } })
  say({ k: 'done', t: machineNow(), op: id, ok: true, token })
}

let increments = 0
let working = false
async function work(): Promise<void> {
  while (!stopping) {
    if (leader === undefined) {
      // The lock's coordinator is the leader: wait until there is one.
      await Promise.race([sleep(20), whenStopped])
      continue
    }
    const token = await Promise.race([acquire(), whenStopped])
    if (token === 'stop') {
      waiting = undefined
      // Given up: a grant that comes later is given back at once (see onEvent).
      if (acquiring !== undefined) say({ k: 'done', t: machineNow(), op: acquiring, ok: false })
      acquiring = undefined
      break
    }
    const read = await op('read', token)
    if (read.ok) {
      await sleep(config.csMs) // inside the critical section, the lease unchecked
      const write = await op('write', token, read.value + 1)
      if (write.ok) increments++
    }
    release(token)
    await sleep(Math.random() * config.csMs)
  }
  say({ k: 'stopped', t: machineNow(), increments })
}

const exit = async () => {
  handle.stop()
  await udp.close({ graceful: false })
  stats() // the last deliveries
  process.exit(0)
}

const input = createInterface({ input: process.stdin })
input.on('line', (text) => {
  const line = parseLine<ParentLine>(text)
  if (line === undefined) return
  if (line.k === 'go') {
    if (!working && !stopping) {
      working = true
      work().catch(fail)
    }
  } else if (line.k === 'res') {
    const resolve = answers.get(line.op)
    answers.delete(line.op)
    resolve?.(line)
  } else if (line.k === 'stop') {
    if (stopping) return
    stopping = true
    stopped()
    // A workload under way says `stopped` once its operation is done.
    if (!working) say({ k: 'stopped', t: machineNow(), increments })
  } else if (line.k === 'exit') void exit()
  else if (line.k === 'clock-step' && Number.isFinite(line.deltaMs)) {
    steppedMs += line.deltaMs
    say({ k: 'stepped', t: machineNow(), deltaMs: line.deltaMs })
  }
})
input.on('close', () => void exit())

say({ k: 'ready', t: machineNow(), pid: process.pid, stored })
stats()
