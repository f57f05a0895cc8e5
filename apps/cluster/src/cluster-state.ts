/**
 * The parent's model of the cluster: each node as its process and its reports describe it (up,
 * paused, down; whom it follows in which term, what it holds), the leader a majority follows, and
 * the failover a fault that took the leader away has started.
 */
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import type { ChaosKind, Options } from './args.js'
import type { Hosts } from './hosts.js'
import { DEFAULT_TIMINGS, formatToken } from './node/protocol.js'
import type { NodeRow } from './view.js'
import { seeded } from './wait.js'
import { machineNow, type NodeConfig } from './wire.js'

/** A node's message counters, as one incarnation last reported them. */
export interface Counters {
  sent: number
  delivered: number
  retransmissions: number
  /** Resent to a restarted peer: the old incarnation may have delivered some of them already. */
  resent: number
  dropped: number
}
export const ZERO: Counters = { sent: 0, delivered: 0, retransmissions: 0, resent: 0, dropped: 0 }
const total = (n: Node, k: keyof Counters) => n.incarnations.reduce((sum, c) => sum + c[k], 0)

/** The message counters of every incarnation of every node, summed. */
export function messageTotals(nodes: readonly Node[]): Counters {
  return nodes.reduce(
    (sum, n) => ({
      sent: sum.sent + total(n, 'sent'),
      delivered: sum.delivered + total(n, 'delivered'),
      retransmissions: sum.retransmissions + total(n, 'retransmissions'),
      resent: sum.resent + total(n, 'resent'),
      dropped: sum.dropped + total(n, 'dropped'),
    }),
    { ...ZERO },
  )
}

/** The software clocks the running nodes last reported. */
export function syncedClocks(nodes: readonly Node[]): number[] {
  return nodes.filter((n) => n.state === 'up' && n.clockMs !== undefined).map((n) => n.clockMs!)
}

/** Largest minus smallest: of the hardware clocks (the skews), of the synchronized clocks. */
export function clockSpread(skews: readonly number[], clocks: readonly number[]) {
  return {
    start: Math.max(...skews) - Math.min(...skews),
    end:
      clocks.length > 0
        ? Math.round((Math.max(...clocks) - Math.min(...clocks)) * 10) / 10
        : undefined,
  }
}

/** A node's row of the live table. */
export function rowOf(n: Node, cut: boolean): NodeRow {
  return {
    id: n.id,
    address: `${n.config.members[n.id]!.host}:${n.config.members[n.id]!.port}`,
    state: n.state,
    cut,
    role: n.role,
    term: n.term,
    leader: n.leader,
    clockMs: n.state === 'up' ? n.clockMs : undefined,
    holds: n.holds,
    coordinator: n.coordinator === n.id,
  }
}

/** The parent's view of one node, across its incarnations. */
export interface Node {
  id: string
  index: number
  config: NodeConfig
  proc: ChildProcess | undefined
  pid: number | undefined
  state: NodeRow['state']
  /** We killed it or told it to exit: its exit is no failure. */
  expectExit: boolean
  stopped: boolean
  restarts: number
  leader: string | undefined
  term: number | undefined
  role: NodeRow['role']
  coordinator: string | undefined
  holds: number | undefined
  clockMs: number | undefined
  /**
   * Counters of each incarnation, as it last reported them (its lines still read after its exit:
   * a killed node's last reports are in the pipe).
   */
  incarnations: Counters[]
  stderr: string[]
}

/** Time inside the critical section, between the read and the write. */
const CS_MS = 20

/**
 * The run's nodes `n1`..`nN`, not started yet: one per host, each with its state file in `dir`
 * and a hardware clock off by up to ±50 ms (seeded by --seed).
 */
export function createNodes(
  o: Pick<Options, 'n' | 'seed' | 'trace' | 'seconds'>,
  hosts: Pick<Hosts, 'addresses' | 'ports'>,
  dir: string,
  origin: number,
): Node[] {
  const ids = Array.from({ length: o.n }, (_, i) => `n${i + 1}`)
  const random = seeded(o.seed)
  const wallOffsetMs = Date.now() - machineNow()
  const members = Object.fromEntries(
    ids.map((id, i) => [id, { host: hosts.addresses[i]!, port: hosts.ports[i]! }]),
  )
  return ids.map((id, index) =>
    newNode(id, index, {
      id,
      members,
      storage: join(dir, `${id}.json`),
      timings: DEFAULT_TIMINGS,
      skewMs: Math.round((random() * 2 - 1) * 50),
      csMs: CS_MS,
      trace: o.trace !== undefined,
      maxLifetimeMs: o.seconds * 1000 + 180_000,
      originMs: origin,
      wallOffsetMs,
    }),
  )
}

/** `n1 10.0.0.1:7000 (clock +12 ms), ...`, for the run's log. */
export function describeNodes(nodes: readonly Node[]): string {
  return nodes
    .map(
      (n) =>
        `${n.id} ${n.config.members[n.id]!.host}:${n.config.members[n.id]!.port} (clock ${n.config.skewMs >= 0 ? '+' : ''}${n.config.skewMs} ms)`,
    )
    .join(', ')
}

/** A node not started yet. */
function newNode(id: string, index: number, config: NodeConfig): Node {
  return {
    id,
    index,
    config,
    proc: undefined,
    pid: undefined,
    state: 'starting',
    expectExit: false,
    stopped: false,
    restarts: 0,
    leader: undefined,
    term: undefined,
    role: undefined,
    coordinator: undefined,
    holds: undefined,
    clockMs: undefined,
    incarnations: [],
    stderr: [],
  }
}

export class ClusterState {
  nodes: Node[] = []
  /** A fault that took the leader away: reported when a majority follows a new one. */
  pendingFailover: { t: number; term: number; cause: ChaosKind } | undefined
  private readonly majority: number

  constructor(
    n: number,
    private readonly note: (text: string) => void,
  ) {
    this.majority = Math.floor(n / 2) + 1
  }

  /** The leader that a majority of the running nodes follow now, in the highest such term. */
  currentLeader(): { leader: string; term: number } | undefined {
    const votes = new Map<string, number>()
    for (const n of this.nodes) {
      if (n.state !== 'up' || n.leader === undefined) continue
      const key = `${n.term} ${n.leader}`
      votes.set(key, (votes.get(key) ?? 0) + 1)
    }
    let best: { leader: string; term: number } | undefined
    for (const [key, count] of votes) {
      if (count < this.majority) continue
      const [term, leader] = key.split(' ')
      if (best === undefined || Number(term) > best.term)
        best = { leader: leader!, term: Number(term) }
    }
    return best
  }

  /** Every node follows the leader a majority follows, in its term. */
  agreedByAll(): boolean {
    const l = this.currentLeader()
    return l !== undefined && this.nodes.every((n) => n.leader === l.leader && n.term === l.term)
  }

  /** A node that is up, picked with `random`; undefined when none is. */
  randomUpNode(random: () => number): Node | undefined {
    const up = this.nodes.filter((n) => n.state === 'up')
    return up.length === 0 ? undefined : up[Math.floor(random() * up.length)]
  }

  /** A fault hits `targets` at `t`: if the leader is among them, a failover starts. */
  leaderFault(t: number, cause: ChaosKind, targets: readonly string[]): void {
    const l = this.currentLeader()
    if (l !== undefined && targets.includes(l.leader))
      this.pendingFailover = { t, term: l.term, cause }
  }

  /** A node reported an event of its election or lock: what it follows, what it holds. */
  onEvent(node: Node, t: number, p: 'election' | 'lock' | 'sync', e: Record<string, unknown>) {
    if (p === 'election') {
      if (e.type === 'leader') {
        node.leader = String(e.leader)
        node.term = e.term as number
        node.role = node.leader === node.id ? 'leader' : 'follower'
        if (node.role === 'leader') this.note(`${node.id} leads term ${node.term}`)
        this.checkFailover(t)
      } else if (e.type === 'leader-lost') {
        node.leader = undefined
        node.role = 'no leader'
      } else if (e.type === 'candidate') {
        node.role = 'candidate'
        node.term = e.term as number
      } else if (e.type === 'stepped-down') {
        this.note(`${node.id} stepped down from term ${e.term} (${e.reason})`)
      }
    } else if (p === 'lock') {
      if (e.type === 'acquired') node.holds = e.token as number
      else if (e.type === 'released' && e.token === node.holds) node.holds = undefined
      else if (e.type === 'coordinator-changed') node.coordinator = String(e.coordinator)
      else if (e.type === 'lease-lost') {
        this.note(`${node.id} lost its lease on ${formatToken(e.token as number)} (${e.reason})`)
      }
    }
  }

  private checkFailover(t: number): void {
    const pending = this.pendingFailover
    if (pending === undefined) return
    const now = this.currentLeader()
    if (now !== undefined && now.term > pending.term) {
      this.pendingFailover = undefined
      this.note(
        `failover (${pending.cause}): a majority follows ${now.leader} in term ${now.term}, ${Math.round(t - pending.t)} ms after the fault`,
      )
    }
  }
}
