/**
 * One run of the cluster: make the hosts, start a node process per host, wait for a leader, start
 * the workload, play the chaos script, stop, check, clean up. Every wait is bounded, every process
 * it starts is killed by PID at the end (also on Ctrl-C, SIGTERM, or a failure of its own, from
 * exit handlers), and every namespace it made is deleted.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { FaultEvent } from '@sd/transport'
import { type ChaosKind, NETNS_ONLY, type Options } from './args.js'
import type { Operation } from './history.js'
import { createLoopbackHosts, createNetnsHosts, type Hosts, netnsUnavailable } from './hosts.js'
import { DEFAULT_TIMINGS, formatToken, leaseBoundMs } from './node/protocol.js'
import { deleteStaleRunDirs, makeRunDir } from './rundir.js'
import { FencedStore, readStoreFile } from './store.js'
import {
  type BootRecord,
  type FaultRecord,
  type NodeEvent,
  type RunRecord,
  type Summary,
  summarize,
} from './summary.js'
import { TraceRecorder } from './trace.js'
import { Display, type NodeRow, type ViewState } from './view.js'
import { machineNow, type NodeConfig, type NodeLine, type ParentLine, parseLine } from './wire.js'

const WORKER = fileURLToPath(new URL('./node/worker.ts', import.meta.url))
const APP_DIR = fileURLToPath(new URL('..', import.meta.url))

/** The cluster could not run (as opposed to a run that found a violation). */
export class ClusterError extends Error {
  override name = 'ClusterError'
}

export interface RunIo {
  /** Raw output for the refreshing table. */
  write(text: string): void
  /** A line of progress. */
  line(text: string): void
  /** Draw the table in place (a terminal), or plain lines. */
  tty: boolean
  /** The terminal's width, when it is one. */
  columns?: () => number | undefined
  /** Interrupted: the summary of what ran until then (partial), when the workload had started. */
  interrupted?(summary: Summary | undefined, signal: NodeJS.Signals): void
}

/** Time inside the critical section, between the read and the write. */
const CS_MS = 20
/** Bounds on the waits (generous: a loaded 2-core machine starts tsx processes slowly). */
const READY_TIMEOUT_MS = 120_000
const FIRST_LEADER_TIMEOUT_MS = 60_000
const SETTLE_TIMEOUT_MS = 8_000
/** Calm between two faults. */
const SETTLE_MS = 1000
const TRAP_TIMEOUT_MS = 6_000
const STOP_TIMEOUT_MS = 15_000
const EXIT_TIMEOUT_MS = 5_000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `done` every 20 ms for at most `timeoutMs`; whether it came true. */
async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = machineNow() + timeoutMs
  while (!done()) {
    if (machineNow() > end) return false
    await sleep(20)
  }
  return true
}

/** A small seeded generator (mulberry32), for the clock skews. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Counters {
  sent: number
  delivered: number
  retransmissions: number
  dropped: number
}
const ZERO: Counters = { sent: 0, delivered: 0, retransmissions: 0, dropped: 0 }
const total = (n: Node, k: keyof Counters) => n.incarnations.reduce((sum, c) => sum + c[k], 0)

/** The parent's view of one node, across its incarnations. */
interface Node {
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

export async function runCluster(o: Options, io: RunIo): Promise<Summary> {
  const run = new ClusterRun(o, io)
  try {
    return await run.execute()
  } finally {
    run.cleanup()
  }
}

class ClusterRun {
  private hosts: Hosts | undefined
  private dir: string | undefined
  private store: FencedStore | undefined
  private nodes: Node[] = []
  private events: NodeEvent[] = []
  private faults: FaultRecord[] = []
  /** The same faults as the checkers take them (machine ms), and nodes that died on their own. */
  private faultEvents: FaultEvent[] = []
  /** Every operation, by `node pid op`, in the order invoked. */
  private operations = new Map<string, Operation>()
  /** The run's time origin (machine ms): the trace's and the nodes' monotonic clocks' zero. */
  private origin = machineNow()
  /** Seeded choices of the nemesis (which node, which way a clock steps, the order of faults). */
  private chaosRandom: () => number
  private boots: BootRecord[] = []
  private errors: string[] = []
  private log: string[] = []
  private chaosNow = 'waiting for the cluster'
  private startedAt: number | undefined
  private stopping = false
  private cut = new Set<string>()
  private lossOn = false
  private lossEnds: ReturnType<typeof setTimeout> | undefined
  private display: Display
  private trace: TraceRecorder | undefined
  private removeHandlers: (() => void) | undefined
  private cleaned = false
  /** Node processes whose output may still hold lines (their pipes are not closed yet). */
  private unread = new Set<ChildProcess>()
  /** A fault that took the leader away: reported when a majority follows a new one. */
  private pendingFailover: { t: number; term: number; cause: ChaosKind } | undefined
  /** kill-holder / pause-holder: the next read of a holder that qualifies springs it. */
  private trap: { armedAt: number; spring: (node: Node, token: number) => void } | undefined
  private readonly majority: number

  constructor(
    private readonly o: Options,
    private readonly io: RunIo,
  ) {
    this.majority = Math.floor(o.n / 2) + 1
    this.chaosRandom = seeded(o.seed ^ 0x5eed)
    this.display = new Display(io.tty, io.write, io.line, io.columns)
  }

  // ---- the run ------------------------------------------------------------------------------

  async execute(): Promise<Summary> {
    const o = this.o
    this.removeHandlers = installExitHandlers(
      () => this.cleanup(),
      (signal) => this.io.interrupted?.(this.partialSummary(signal), signal),
    )
    const why = netnsUnavailable()
    if (o.mode === 'netns' && why !== undefined) {
      throw new ClusterError(`--netns: network namespaces cannot be used here (${why})`)
    }
    const netns = o.mode === 'netns' || (o.mode === 'auto' && why === undefined)
    if (o.mode === 'auto' && why !== undefined) {
      this.note(`network namespaces unavailable (${why}): every node on loopback instead`)
    }
    this.hosts = netns ? createNetnsHosts(o.n) : await createLoopbackHosts(o.n)
    const stale = deleteStaleRunDirs()
    if (stale.length > 0) this.note(`deleted ${stale.length} run directories left by killed runs`)
    this.dir = makeRunDir()
    this.io.line(`run directory ${this.dir}`)
    this.store = new FencedStore(join(this.dir, 'counter.json'))
    this.origin = machineNow()
    if (o.trace) this.trace = new TraceRecorder(this.origin, o.seed)

    const ids = Array.from({ length: o.n }, (_, i) => `n${i + 1}`)
    const random = seeded(o.seed)
    const members = Object.fromEntries(
      ids.map((id, i) => [id, { host: this.hosts!.addresses[i]!, port: this.hosts!.ports[i]! }]),
    )
    this.nodes = ids.map((id, index) => ({
      id,
      index,
      config: {
        id,
        members,
        storage: join(this.dir!, `${id}.json`),
        timings: DEFAULT_TIMINGS,
        skewMs: Math.round((random() * 2 - 1) * 50),
        csMs: CS_MS,
        trace: o.trace !== undefined,
        maxLifetimeMs: o.seconds * 1000 + 180_000,
        originMs: this.origin,
      },
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
    }))
    this.note(
      `${o.n} nodes in ${this.hosts.mode} mode: ${this.nodes
        .map(
          (n) =>
            `${n.id} ${n.config.members[n.id]!.host}:${n.config.members[n.id]!.port} (clock ${n.config.skewMs >= 0 ? '+' : ''}${n.config.skewMs} ms)`,
        )
        .join(', ')}`,
    )
    for (const node of this.nodes) this.spawn(node)
    const drawer = setInterval(() => this.draw(), this.io.tty ? 250 : 500)
    try {
      if (
        !(await until(
          () => this.nodes.every((n) => n.state === 'up') || this.errors.length > 0,
          READY_TIMEOUT_MS,
        ))
      ) {
        throw new ClusterError(`the nodes did not start within ${READY_TIMEOUT_MS / 1000} s`)
      }
      if (this.errors.length > 0) throw new ClusterError(`a node failed: ${this.errors[0]}`)
      this.chaosNow = 'waiting for a leader'
      const agreed = () => {
        const l = this.currentLeader()
        return (
          l !== undefined && this.nodes.every((n) => n.leader === l.leader && n.term === l.term)
        )
      }
      if (!(await until(agreed, FIRST_LEADER_TIMEOUT_MS))) {
        throw new ClusterError(
          `no leader agreed by every node within ${FIRST_LEADER_TIMEOUT_MS / 1000} s`,
        )
      }
      this.startedAt = machineNow()
      this.trace?.mark(this.startedAt, 'workload starts')
      const first = this.currentLeader()!
      this.note(`${first.leader} leads term ${first.term}: the workload starts`)
      for (const node of this.nodes) this.send(node, { k: 'go' })

      const deadline = this.startedAt + o.seconds * 1000
      await this.playChaos(deadline)
      this.chaosNow = 'done; the workload runs to the end'
      const left = deadline - machineNow()
      if (left > 0) await sleep(left)
      return await this.finish()
    } finally {
      clearInterval(drawer)
    }
  }

  private async finish(): Promise<Summary> {
    const hosts = this.hosts!
    const endedAt = machineNow()
    this.stopping = true
    this.chaosNow = 'stopping'
    clearTimeout(this.lossEnds)
    if (this.lossOn) {
      this.lossOn = false
      const loss = this.faults.find(
        (f) => f.kind === 'loss' && f.t !== undefined && f.until === undefined,
      )
      if (loss) loss.until = machineNow()
      this.recordFault({ t: machineNow(), type: 'loss', percent: 0 })
    }
    if (this.cut.size > 0) this.recordFault({ t: machineNow(), type: 'heal' })
    if (this.cut.size > 0 || this.o.chaos.includes('loss')) hosts.heal()
    this.cut.clear()
    for (const node of this.nodes) {
      if (node.state === 'paused') this.signal(node, 'SIGCONT')
    }
    for (const node of this.nodes)
      if (node.state === 'up' || node.state === 'paused') this.send(node, { k: 'stop' })
    const quiet = () => this.nodes.every((n) => n.state !== 'up' || n.stopped)
    if (!(await until(quiet, STOP_TIMEOUT_MS))) {
      this.errors.push(
        `the workload did not stop within ${STOP_TIMEOUT_MS / 1000} s at ${this.nodes
          .filter((n) => n.state === 'up' && !n.stopped)
          .map((n) => n.id)
          .join(', ')}`,
      )
    }
    // Operations already answered are all the store took: nobody writes any more.
    this.chaosNow = 'over: every node finished its last operation'
    this.draw(true)
    const drops = hosts.drops()
    const clocks = this.nodes
      .filter((n) => n.state === 'up' && n.clockMs !== undefined)
      .map((n) => n.clockMs!)
    for (const node of this.nodes) {
      node.expectExit = true
      this.send(node, { k: 'exit' })
    }
    if (!(await until(() => this.nodes.every((n) => n.proc === undefined), EXIT_TIMEOUT_MS))) {
      for (const node of this.nodes) this.signal(node, 'SIGKILL')
      await until(() => this.nodes.every((n) => n.proc === undefined), EXIT_TIMEOUT_MS)
    }
    // Their last lines (the final counters) are read before anything is summed.
    await until(() => this.unread.size === 0, EXIT_TIMEOUT_MS)
    hosts.destroy()

    const record = this.record(endedAt, drops, clocks)
    const summary = summarize(record)
    if (this.o.history) {
      const lines = record.history.map((op) => JSON.stringify(op))
      writeFileSync(this.o.history, lines.length > 0 ? `${lines.join('\n')}\n` : '')
      this.io.line(`history written to ${this.o.history}`)
    }
    if (this.trace && this.o.trace) {
      writeFileSync(this.o.trace, JSON.stringify(this.trace.document(record.nodes)))
      this.io.line(`trace written to ${this.o.trace}`)
    }
    return summary
  }

  /** What the parent recorded, for the summary: until `endedAt`, with the hosts' drop counters. */
  private record(
    endedAt: number,
    drops: Array<{ cut: number; loss: number }>,
    clocks: number[],
  ): RunRecord {
    const skews = this.nodes.map((n) => n.config.skewMs)
    return {
      mode: this.hosts!.mode,
      nodes: this.nodes.map((n) => n.id),
      seconds: this.o.seconds,
      startedAt: this.startedAt!,
      endedAt,
      origin: this.origin,
      events: this.events,
      faults: this.faults,
      faultEvents: this.faultEvents,
      history: [...this.operations.values()],
      boots: this.boots,
      store: readStoreFile(join(this.dir!, 'counter.json')),
      anomalies: this.store!.anomalies,
      messages: this.nodes.reduce(
        (sum, n) => ({
          sent: sum.sent + total(n, 'sent'),
          delivered: sum.delivered + total(n, 'delivered'),
          retransmissions: sum.retransmissions + total(n, 'retransmissions'),
          dropped: sum.dropped + total(n, 'dropped'),
        }),
        { ...ZERO },
      ),
      nftDrops: drops.reduce((s, d) => ({ cut: s.cut + d.cut, loss: s.loss + d.loss }), {
        cut: 0,
        loss: 0,
      }),
      clockSpreadMs: {
        start: Math.max(...skews) - Math.min(...skews),
        end:
          clocks.length > 0
            ? Math.round((Math.max(...clocks) - Math.min(...clocks)) * 10) / 10
            : undefined,
      },
      errors: this.errors,
    }
  }

  /**
   * On an interrupt (Ctrl-C, SIGTERM, SIGHUP), before the cleanup: the summary of what ran until
   * now, marked partial (the workload was not stopped, operations under way stay indeterminate).
   * Undefined before the workload started, or when it cannot be made.
   */
  partialSummary(signal: NodeJS.Signals): Summary | undefined {
    if (this.startedAt === undefined || this.cleaned || this.dir === undefined) return undefined
    try {
      const endedAt = machineNow()
      const drops = (this.hosts?.mode === 'netns' ? safeDrops(this.hosts) : undefined) ?? []
      const clocks = this.nodes
        .filter((n) => n.state === 'up' && n.clockMs !== undefined)
        .map((n) => n.clockMs!)
      return summarize({ ...this.record(endedAt, drops, clocks), interrupted: signal })
    } catch {
      return undefined
    }
  }

  /** Synchronous and idempotent: kills every process it started, deletes what it made. */
  cleanup(): void {
    if (this.cleaned) return
    this.cleaned = true
    for (const node of this.nodes) {
      if (node.pid !== undefined && node.proc !== undefined) {
        try {
          process.kill(node.pid, 'SIGKILL')
        } catch {}
      }
    }
    this.hosts?.destroy()
    if (this.dir !== undefined && !this.o.keep) rmSync(this.dir, { recursive: true, force: true })
    else if (this.dir !== undefined) this.io.line(`kept ${this.dir}`)
    this.removeHandlers?.()
  }

  // ---- node processes -------------------------------------------------------------------------

  private spawn(node: Node): void {
    const prefix = this.hosts!.exec(node.index)
    const argv = [
      ...prefix,
      process.execPath,
      '--import',
      'tsx',
      WORKER,
      JSON.stringify(node.config),
    ]
    const proc = spawn(argv[0]!, argv.slice(1), { cwd: APP_DIR, stdio: ['pipe', 'pipe', 'pipe'] })
    node.proc = proc
    node.pid = proc.pid
    node.state = 'starting'
    node.expectExit = false
    node.stopped = false
    node.leader = undefined
    node.term = undefined
    node.role = undefined
    node.coordinator = undefined
    node.holds = undefined
    proc.stdin!.on('error', () => {}) // a node that died cannot read: nothing to do
    // A process that could not be started at all (its program or directory gone): a failure of
    // the run, not of the parent.
    proc.once('error', (error) => {
      if (node.proc !== proc) return
      node.proc = undefined
      node.pid = undefined
      node.state = 'down'
      const why = `${node.id} could not be started: ${error.message}`
      this.errors.push(why)
      this.note(why)
    })
    const counters = { ...ZERO }
    node.incarnations.push(counters)
    this.unread.add(proc)
    proc.once('close', () => this.unread.delete(proc))
    createInterface({ input: proc.stdout! }).on('line', (text) => {
      const line = parseLine<NodeLine>(text)
      if (line?.k === 'stats') {
        // Also after its exit: the counts of its last moments, read from the pipe.
        counters.sent = line.sent
        counters.delivered = line.delivered
        counters.retransmissions = line.retransmissions
        counters.dropped = line.dropped
      }
      if (line !== undefined && node.proc === proc) this.onLine(node, line)
    })
    createInterface({ input: proc.stderr! }).on('line', (text) => {
      node.stderr.push(text)
      if (node.stderr.length > 20) node.stderr.shift()
    })
    proc.once('exit', (code, signal) => {
      if (node.proc !== proc) return
      node.proc = undefined
      node.pid = undefined
      node.holds = undefined
      node.state = this.stopping && node.expectExit ? 'stopped' : 'down'
      if (!node.expectExit) {
        this.recordFault({ t: machineNow(), type: 'crash', node: node.id })
        const why = `${node.id} exited on its own (${signal ?? `code ${code}`})${node.stderr.length > 0 ? `: ${node.stderr.slice(-5).join(' | ')}` : ''}`
        this.errors.push(why)
        this.note(why)
      }
    })
  }

  private send(node: Node, line: ParentLine): void {
    if (node.proc?.stdin?.writable) node.proc.stdin.write(`${JSON.stringify(line)}\n`)
  }

  private signal(node: Node, signal: NodeJS.Signals): void {
    if (node.pid === undefined) return
    try {
      process.kill(node.pid, signal)
    } catch {}
    if (signal === 'SIGSTOP' && node.state !== 'paused') {
      node.state = 'paused'
      this.recordFault({ t: machineNow(), type: 'pause', node: node.id })
    }
    if (signal === 'SIGCONT' && node.state === 'paused') {
      node.state = 'up'
      // How much waited for it is not known outside the process.
      this.recordFault({ t: machineNow(), type: 'resume', node: node.id, backlog: 0 })
    }
  }

  /** A fault, for the checkers and the trace. */
  private recordFault(f: FaultEvent): void {
    this.faultEvents.push(f)
    this.trace?.fault(f)
  }

  private kill(node: Node): void {
    node.expectExit = true
    if (node.proc !== undefined) this.recordFault({ t: machineNow(), type: 'crash', node: node.id })
    this.signal(node, 'SIGKILL')
    node.state = 'down'
  }

  private onLine(node: Node, line: NodeLine): void {
    switch (line.k) {
      case 'ready': {
        const restart = this.boots.some((b) => b.node === node.id)
        this.boots.push({ node: node.id, t: line.t, stored: line.stored })
        node.state = 'up'
        if (restart) this.recordFault({ t: line.t, type: 'restart', node: node.id })
        else this.trace?.boot(line.t, node.id, false)
        if (restart) {
          this.note(
            `${node.id} is back (pid ${line.pid}); its file held term ${line.stored.term}, lock term ${line.stored.lockTerm}, boot ${line.stored.boots + 1}`,
          )
          if (this.stopping) this.send(node, { k: 'stop' })
          else if (this.startedAt !== undefined) this.send(node, { k: 'go' })
        }
        return
      }
      case 'ev':
        this.onEvent(node, line)
        return
      case 'stats':
        node.clockMs = line.clockMs
        return
      case 'op':
        this.invoked(
          node,
          line.op,
          line.kind,
          line.t,
          line.token,
          line.kind === 'write' ? line.value : undefined,
        )
        this.onOp(node, line)
        return
      case 'invoke':
        this.invoked(node, line.op, line.kind, line.t, line.token)
        return
      case 'done': {
        const op = this.operations.get(`${node.id} ${node.pid} ${line.op}`)
        if (op === undefined) return
        op.completedAt = line.t
        op.outcome = line.ok ? 'ok' : 'fail'
        if (line.token !== undefined) op.token = line.token
        if (line.value !== undefined) op.value = line.value
        return
      }
      case 'stepped':
        this.recordFault({ t: line.t, type: 'clock-step', node: node.id, deltaMs: line.deltaMs })
        return
      case 'stopped':
        node.stopped = true
        return
      case 'send':
        this.trace?.send(line.t, node.id, line.to, line.seq, line.msg)
        return
      case 'deliver':
        this.trace?.deliver(line.t, line.from, node.id, line.seq)
        return
      case 'error': {
        const why = `${node.id} failed: ${line.message.split('\n')[0]}`
        this.errors.push(why)
        this.note(why)
        return
      }
    }
  }

  /** An operation begins: `info` (indeterminate) until the node says how it ended. */
  private invoked(
    node: Node,
    op: number,
    f: Operation['f'],
    t: number,
    token?: number,
    value?: number,
  ): void {
    this.operations.set(`${node.id} ${node.pid} ${op}`, {
      node: node.id,
      pid: node.pid ?? 0,
      op,
      f,
      ...(token === undefined ? {} : { token }),
      ...(value === undefined ? {} : { value }),
      invokedAt: t,
      outcome: 'info',
    })
  }

  private onEvent(node: Node, line: Extract<NodeLine, { k: 'ev' }>): void {
    const { p, e, t } = line
    this.trace?.emit(t, node.id, p, e)
    if (p !== 'election' && p !== 'lock' && p !== 'sync') return // compose's own notices (--trace)
    this.events.push({ node: node.id, t, p, e })
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

  private onOp(node: Node, line: Extract<NodeLine, { k: 'op' }>): void {
    const store = this.store!
    const res =
      line.kind === 'read'
        ? store.read(node.id, line.token)
        : store.write(node.id, line.token, line.value)
    this.send(
      node,
      res.ok
        ? { k: 'res', op: line.op, ok: true, value: res.value }
        : { k: 'res', op: line.op, ok: false, reason: res.reason },
    )
    if (!res.ok && res.reason.startsWith('fenced')) {
      this.note(
        `fencing: ${node.id}'s ${line.kind} with ${formatToken(line.token)} refused (newest ${formatToken(store.snapshot.newestToken)})`,
      )
    }
    if (res.ok && line.kind === 'read' && this.trap !== undefined && !this.stopping) {
      const leader = this.currentLeader()?.leader
      const patient = machineNow() - this.trap.armedAt < TRAP_TIMEOUT_MS / 2
      // A holder that is not the leader, so that the fault hits the lock alone; any holder later.
      if (!(patient && node.id === leader)) {
        const trap = this.trap
        this.trap = undefined
        trap.spring(node, line.token)
      }
    }
  }

  // ---- who leads ------------------------------------------------------------------------------

  /** The leader that a majority of the running nodes follow now, in the highest such term. */
  private currentLeader(): { leader: string; term: number } | undefined {
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

  private leaderFault(t: number, cause: ChaosKind, targets: readonly string[]): void {
    const l = this.currentLeader()
    if (l !== undefined && targets.includes(l.leader))
      this.pendingFailover = { t, term: l.term, cause }
  }

  // ---- chaos ----------------------------------------------------------------------------------

  private async playChaos(deadline: number): Promise<void> {
    const o = this.o
    const pauseMs = Math.max(o.faultMs, leaseBoundMs(DEFAULT_TIMINGS) + 1000)
    const needs: Record<ChaosKind, number> = {
      'kill-leader': o.faultMs,
      'kill-holder': o.faultMs + TRAP_TIMEOUT_MS / 4,
      'kill-random': o.faultMs,
      'pause-leader': pauseMs,
      'pause-holder': pauseMs + TRAP_TIMEOUT_MS / 4,
      'clock-step': o.faultMs,
      partition: o.faultMs,
      // In the background, but over before the run ends.
      loss: o.faultMs,
    }
    await sleep(Math.min(1500, o.seconds * 100))
    const playable = o.chaos.filter((kind) => {
      if (this.hosts!.mode === 'netns' || !NETNS_ONLY.has(kind)) return true
      this.faults.push({ kind, targets: [], skipped: 'needs network namespaces (root, ip, nft)' })
      this.note(`${kind} skipped: it needs network namespaces (run as root with ip and nft)`)
      return false
    })
    // Round after round (or --rounds of them), each fault only if the run has time for it.
    for (let round = 1; o.rounds === 0 || round <= o.rounds; round++) {
      let played = false
      let lossPlayed = false
      for (const kind of o.shuffle ? this.shuffled(playable) : playable) {
        if (machineNow() + needs[kind] + 500 > deadline) {
          if (round === 1) {
            this.faults.push({ kind, targets: [], skipped: 'not enough time left' })
            this.note(`${kind} skipped: not enough time left`)
          }
          continue
        }
        // Loss runs in the background and takes no time here (the next faults happen under it).
        if (kind === 'loss' && this.lossOn) continue
        await this.fault(kind, pauseMs)
        if (kind === 'loss') {
          lossPlayed = true
          continue
        }
        played = true
        // Before the next fault: a leader again, and a moment of calm.
        this.chaosNow = `${kind} done; settling`
        await until(
          () => this.currentLeader() !== undefined && this.pendingFailover === undefined,
          SETTLE_TIMEOUT_MS,
        )
        await sleep(Math.min(SETTLE_MS, Math.max(0, deadline - machineNow() - 500)))
      }
      if (!played && !lossPlayed) break
      if (!played) {
        // A round of loss alone: its episode ends and the links settle before the next one, as
        // every other fault's does.
        await until(() => !this.lossOn, o.faultMs + 1000)
        this.chaosNow = 'loss done; settling'
        await sleep(Math.min(SETTLE_MS, Math.max(0, deadline - machineNow() - 500)))
      }
    }
  }

  /** The faults in a seeded random order (Fisher-Yates). */
  private shuffled(kinds: readonly ChaosKind[]): ChaosKind[] {
    const out = [...kinds]
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.chaosRandom() * (i + 1))
      ;[out[i], out[j]] = [out[j]!, out[i]!]
    }
    return out
  }

  /** A node that is up, picked at random (seeded); undefined when none is. */
  private randomUpNode(): Node | undefined {
    const up = this.nodes.filter((n) => n.state === 'up')
    return up.length === 0 ? undefined : up[Math.floor(this.chaosRandom() * up.length)]
  }

  /** SIGKILL `node` now, restart it with its state file after --fault-ms. */
  private async killAndRestart(record: FaultRecord, node: Node, why: string): Promise<void> {
    record.t = machineNow()
    record.targets = [node.id]
    this.leaderFault(record.t, record.kind, [node.id])
    this.note(`${record.kind}: SIGKILL ${node.id} (pid ${node.pid}${why})`)
    this.kill(node)
    this.chaosNow = `${record.kind}: ${node.id} killed, restart in ${this.o.faultMs} ms`
    await sleep(this.o.faultMs)
    record.until = machineNow()
    this.restart(node)
  }

  private async fault(kind: ChaosKind, pauseMs: number): Promise<void> {
    const o = this.o
    const hosts = this.hosts!
    const record: FaultRecord = { kind, targets: [] }
    this.faults.push(record)
    switch (kind) {
      case 'kill-leader': {
        this.chaosNow = 'kill-leader: waiting for a leader'
        if (!(await until(() => this.currentLeader() !== undefined, SETTLE_TIMEOUT_MS))) {
          record.skipped = 'no leader to kill'
          return
        }
        const { leader, term } = this.currentLeader()!
        const node = this.nodes.find((n) => n.id === leader)!
        await this.killAndRestart(record, node, `, leader of term ${term}`)
        return
      }
      case 'kill-random': {
        const node = this.randomUpNode()
        if (node === undefined) {
          record.skipped = 'no node up'
          return
        }
        const l = this.currentLeader()
        await this.killAndRestart(
          record,
          node,
          l?.leader === node.id ? `, leader of term ${l.term}` : '',
        )
        return
      }
      case 'pause-leader': {
        this.chaosNow = 'pause-leader: waiting for a leader'
        if (!(await until(() => this.currentLeader() !== undefined, SETTLE_TIMEOUT_MS))) {
          record.skipped = 'no leader to pause'
          return
        }
        const { leader, term } = this.currentLeader()!
        const node = this.nodes.find((n) => n.id === leader)!
        record.t = machineNow()
        record.targets = [leader]
        this.leaderFault(record.t, kind, [leader])
        this.signal(node, 'SIGSTOP')
        this.note(
          `pause-leader: SIGSTOP ${leader} (leader of term ${term}, the lock's coordinator) for ${pauseMs} ms, past its leases`,
        )
        this.chaosNow = `pause-leader: ${leader} paused`
        await sleep(pauseMs)
        record.until = machineNow()
        this.signal(node, 'SIGCONT')
        this.note(`pause-leader: SIGCONT ${leader}: it wakes up in an old term`)
        return
      }
      case 'clock-step': {
        // The leader half of the time: its leases (the leader's and the lock's) are what a step
        // of the wall clock could break.
        const l = this.currentLeader()
        const leaderNode = this.nodes.find((n) => n.id === l?.leader && n.state === 'up')
        const node =
          leaderNode !== undefined && this.chaosRandom() < 0.5 ? leaderNode : this.randomUpNode()
        if (node === undefined) {
          record.skipped = 'no node up'
          return
        }
        const deltaMs = (this.chaosRandom() < 0.5 ? -1 : 1) * o.stepMs
        const pid = node.pid
        record.t = machineNow()
        record.targets = [node.id]
        record.deltaMs = deltaMs
        this.send(node, { k: 'clock-step', deltaMs })
        this.note(
          `clock-step: ${node.id}'s wall clock steps ${deltaMs > 0 ? '+' : ''}${deltaMs} ms for ${o.faultMs} ms${node.id === l?.leader ? ' (the leader)' : ''}`,
        )
        this.chaosNow = `clock-step: ${node.id} off by ${deltaMs} ms`
        await sleep(o.faultMs)
        record.until = machineNow()
        // The same incarnation only: a restarted node starts with an unstepped clock.
        if (node.pid === pid) this.send(node, { k: 'clock-step', deltaMs: -deltaMs })
        this.note(`clock-step: ${node.id}'s wall clock stepped back`)
        return
      }
      case 'kill-holder':
      case 'pause-holder': {
        this.chaosNow = `${kind}: waiting for a holder inside its critical section`
        const sprung = await new Promise<{ node: Node; token: number } | undefined>((resolve) => {
          const timer = setTimeout(() => {
            this.trap = undefined
            resolve(undefined)
          }, TRAP_TIMEOUT_MS)
          this.trap = {
            armedAt: machineNow(),
            spring: (node, token) => {
              clearTimeout(timer)
              record.t = machineNow()
              record.targets = [node.id]
              record.token = token
              this.leaderFault(record.t, kind, [node.id])
              // Right after its read was answered: inside the critical section, before its write.
              if (kind === 'kill-holder') this.kill(node)
              else this.signal(node, 'SIGSTOP')
              resolve({ node, token })
            },
          }
        })
        if (sprung === undefined) {
          record.skipped = 'no holder entered its critical section in time'
          return
        }
        const { node, token } = sprung
        if (kind === 'kill-holder') {
          this.note(
            `kill-holder: SIGKILL ${node.id} inside its critical section (token ${formatToken(token)})`,
          )
          this.chaosNow = `kill-holder: ${node.id} killed holding ${formatToken(token)}, restart in ${o.faultMs} ms`
          await sleep(o.faultMs)
          record.until = machineNow()
          this.restart(node)
        } else {
          this.note(
            `pause-holder: SIGSTOP ${node.id} inside its critical section (token ${formatToken(token)}) for ${pauseMs} ms`,
          )
          this.chaosNow = `pause-holder: ${node.id} paused holding ${formatToken(token)}`
          await sleep(pauseMs)
          // Until another holder has used the counter with a newer token, so that the late write
          // meets the fence (bounded: if nobody else wants the lock, it goes through, rightly).
          await until(() => this.store!.snapshot.newestToken > token, TRAP_TIMEOUT_MS)
          record.until = machineNow()
          this.signal(node, 'SIGCONT')
          this.note(`pause-holder: SIGCONT ${node.id}: it will write with its old token`)
        }
        return
      }
      case 'partition': {
        this.chaosNow = 'partition: waiting for a leader'
        if (!(await until(() => this.currentLeader() !== undefined, SETTLE_TIMEOUT_MS))) {
          record.skipped = 'no leader to cut off'
          return
        }
        const { leader } = this.currentLeader()!
        const size = Math.floor((this.o.n - 1) / 2)
        const minority = [
          this.nodes.find((n) => n.id === leader)!,
          ...this.nodes.filter((n) => n.id !== leader).slice(0, size - 1),
        ]
        record.t = machineNow()
        record.targets = minority.map((n) => n.id)
        this.leaderFault(record.t, kind, record.targets)
        hosts.partition(minority.map((n) => n.index))
        for (const n of minority) this.cut.add(n.id)
        // For the checkers, the cut starts once every rule is in place (and ends, below, as the
        // first is removed): a leader is never judged cut off before it really was.
        this.recordFault({
          t: machineNow(),
          type: 'partition',
          groups: [record.targets, this.nodes.filter((n) => !this.cut.has(n.id)).map((n) => n.id)],
        })
        this.note(
          `partition: ${record.targets.join(', ')} cut off from the others for ${o.faultMs} ms (nft drop rules)`,
        )
        this.chaosNow = `partition: ${record.targets.join(', ')} cut off`
        await sleep(o.faultMs)
        this.recordFault({ t: machineNow(), type: 'heal' })
        hosts.heal()
        this.cut.clear()
        record.until = machineNow()
        this.note('partition healed')
        return
      }
      case 'loss': {
        // In the background: the next faults happen under loss.
        record.t = machineNow()
        record.targets = this.nodes.map((n) => n.id)
        hosts.setLoss(o.lossPercent)
        this.lossOn = true
        this.recordFault({ t: machineNow(), type: 'loss', percent: o.lossPercent })
        this.note(
          `loss: ${o.lossPercent}% of the packets entering every node dropped for ${o.faultMs} ms`,
        )
        this.chaosNow = `loss: ${o.lossPercent}% of packets dropped`
        this.lossEnds = setTimeout(() => {
          if (!this.lossOn) return
          this.lossOn = false
          hosts.setLoss(0)
          record.until = machineNow()
          this.recordFault({ t: machineNow(), type: 'loss', percent: 0 })
          this.note('loss ended')
        }, o.faultMs)
        return
      }
    }
  }

  private restart(node: Node): void {
    node.restarts++
    this.note(`restarting ${node.id} with its state file`)
    this.spawn(node)
  }

  // ---- display --------------------------------------------------------------------------------

  /** The time of the run's log: ms since the origin, the trace's and the summary's clock. */
  private elapsed(): number {
    return machineNow() - this.origin
  }

  /** How far the workload is (ms since it started), for the table's progress. */
  private workloadElapsed(): number {
    return this.startedAt === undefined ? 0 : machineNow() - this.startedAt
  }

  private note(text: string): void {
    this.log.push(`${(this.elapsed() / 1000).toFixed(1).padStart(5)} s  ${text}`)
    if (this.log.length > 8) this.log.shift()
    this.display.note(this.elapsed(), text)
  }

  private view(): ViewState {
    const store = this.store?.snapshot
    const terms = new Set(
      this.events.filter((x) => x.p === 'election' && x.e.type === 'leader').map((x) => x.e.term),
    )
    return {
      mode: this.hosts?.mode ?? 'loopback',
      elapsedMs: Math.min(this.workloadElapsed(), this.o.seconds * 1000),
      runMs: this.elapsed(),
      seconds: this.o.seconds,
      rows: this.nodes.map((n) => ({
        id: n.id,
        address: `${n.config.members[n.id]!.host}:${n.config.members[n.id]!.port}`,
        state: n.state,
        cut: this.cut.has(n.id),
        role: n.role,
        term: n.term,
        leader: n.leader,
        clockMs: n.state === 'up' ? n.clockMs : undefined,
        holds: n.holds,
        coordinator: n.coordinator === n.id,
      })),
      counter: store?.counter ?? 0,
      acknowledged: store?.acknowledged ?? 0,
      fencingRejections: store?.fencingRejections ?? 0,
      terms: terms.size,
      violations: this.store?.anomalies.length ?? 0,
      chaos: this.chaosNow,
      log: [...this.log],
    }
  }

  private draw(force = false): void {
    if (this.startedAt === undefined && !this.io.tty) return
    this.display.draw(this.view(), force)
  }
}

/**
 * Runs `cleanup` (synchronous) when the process exits, is interrupted (SIGINT, SIGTERM, SIGHUP)
 * or fails; returns the function that removes the handlers.
 */
function installExitHandlers(
  cleanup: () => void,
  interrupted: (signal: NodeJS.Signals) => void,
): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    try {
      interrupted(signal)
    } catch {} // the cleanup comes first
    cleanup()
    process.stderr.write(
      `\ninterrupted (${signal}): every node process killed, every namespace deleted\n`,
    )
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  const onFatal = (error: unknown) => {
    cleanup()
    process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`)
    process.exit(3)
  }
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  process.on('exit', cleanup)
  for (const s of signals) process.on(s, onSignal)
  process.on('uncaughtException', onFatal)
  process.on('unhandledRejection', onFatal)
  return () => {
    process.off('exit', cleanup)
    for (const s of signals) process.off(s, onSignal)
    process.off('uncaughtException', onFatal)
    process.off('unhandledRejection', onFatal)
  }
}

function safeDrops(hosts: Hosts): Array<{ cut: number; loss: number }> | undefined {
  try {
    return hosts.drops()
  } catch {
    return undefined
  }
}
