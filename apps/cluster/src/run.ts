/**
 * One run of the cluster: make the hosts, start a node process per host (supervisor.ts), wait
 * for a leader, start the workload (workload.ts), play the chaos script (chaos/), stop, check
 * (summary.ts), clean up. Every wait is bounded, every process it starts is killed by PID at the
 * end (also on Ctrl-C, SIGTERM, or a failure of its own, from exit handlers), and every namespace
 * it made is deleted.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { FaultEvent } from '@sd/transport'
import type { Options } from './args.js'
import type { ChaosContext } from './chaos/context.js'
import { NetworkFaults } from './chaos/context.js'
import { HolderTrap } from './chaos/holder-trap.js'
import { playChaos } from './chaos/script.js'
import { timeBaseViolations } from './checks.js'
import {
  ClusterState,
  clockSpread,
  createNodes,
  describeNodes,
  messageTotals,
  type Node,
  rowOf,
  syncedClocks,
} from './cluster-state.js'
import { installExitHandlers } from './exit-handlers.js'
import { createLoopbackHosts, createNetnsHosts, type Hosts, netnsUnavailable } from './hosts.js'
import { withLeases } from './lock-history.js'
import { writeRunFiles } from './run-files.js'
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
import { killAll, Supervisor } from './supervisor.js'
import { TraceRecorder } from './trace.js'
import { Display, type ViewState } from './view.js'
import { seeded, sleep, until } from './wait.js'
import { machineNow, type NodeLine } from './wire.js'
import { Workload } from './workload.js'

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

/** Bounds on the waits (generous: a loaded 2-core machine starts tsx processes slowly). */
const READY_TIMEOUT_MS = 120_000
const FIRST_LEADER_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 15_000
const EXIT_TIMEOUT_MS = 5_000

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
  private supervisor: Supervisor | undefined
  private dir: string | undefined
  private workload: Workload | undefined
  private readonly cluster: ClusterState
  private events: NodeEvent[] = []
  private faults: FaultRecord[] = []
  /** The same faults as the checkers take them (machine ms), and nodes that died on their own. */
  private faultEvents: FaultEvent[] = []
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
  private network = new NetworkFaults()
  /** kill-holder / pause-holder: the next read of a holder that qualifies springs it. */
  private trap = new HolderTrap()
  private display: Display
  private trace: TraceRecorder | undefined
  private removeHandlers: (() => void) | undefined
  private cleaned = false

  constructor(
    private readonly o: Options,
    private readonly io: RunIo,
  ) {
    this.cluster = new ClusterState(o.n, (text) => this.note(text))
    this.chaosRandom = seeded(o.seed ^ 0x5eed)
    this.display = new Display(io.tty, io.write, io.line, io.columns)
  }

  private get nodes(): Node[] {
    return this.cluster.nodes
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
    this.supervisor = new Supervisor(this.hosts, {
      line: (node, line) => this.onLine(node, line),
      fault: (f) => this.recordFault(f),
      failed: (why) => {
        this.errors.push(why)
        this.note(why)
      },
      note: (text) => this.note(text),
      stopping: () => this.stopping,
    })
    const stale = deleteStaleRunDirs()
    if (stale.length > 0) this.note(`deleted ${stale.length} run directories left by killed runs`)
    this.dir = makeRunDir()
    this.io.line(`run directory ${this.dir}`)
    this.workload = new Workload(
      new FencedStore(join(this.dir, 'counter.json')),
      (node, line) => this.supervisor!.send(node, line),
      (text) => this.note(text),
    )
    this.origin = machineNow()
    if (o.trace) this.trace = new TraceRecorder(this.origin, o.seed)

    this.cluster.nodes = createNodes(o, this.hosts, this.dir, this.origin)
    this.note(`${o.n} nodes in ${this.hosts.mode} mode: ${describeNodes(this.nodes)}`)
    for (const node of this.nodes) this.supervisor!.spawn(node)
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
      if (!(await until(() => this.cluster.agreedByAll(), FIRST_LEADER_TIMEOUT_MS))) {
        throw new ClusterError(
          `no leader agreed by every node within ${FIRST_LEADER_TIMEOUT_MS / 1000} s`,
        )
      }
      this.startedAt = machineNow()
      this.trace?.mark(this.startedAt, 'workload starts')
      const first = this.cluster.currentLeader()!
      this.note(`${first.leader} leads term ${first.term}: the workload starts`)
      for (const node of this.nodes) this.supervisor!.send(node, { k: 'go' })

      const deadline = this.startedAt + o.seconds * 1000
      await playChaos(this.chaosContext(), this.faults, deadline)
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
    const supervisor = this.supervisor!
    const endedAt = machineNow()
    this.stopping = true
    this.chaosNow = 'stopping'
    this.network.end(hosts, this.o.chaos.includes('loss'), this.faults, (f) => this.recordFault(f))
    for (const node of this.nodes) {
      if (node.state === 'paused') supervisor.signal(node, 'SIGCONT')
    }
    for (const node of this.nodes)
      if (node.state === 'up' || node.state === 'paused') supervisor.send(node, { k: 'stop' })
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
    const clocks = syncedClocks(this.nodes)
    for (const node of this.nodes) {
      node.expectExit = true
      supervisor.send(node, { k: 'exit' })
    }
    if (!(await until(() => this.nodes.every((n) => n.proc === undefined), EXIT_TIMEOUT_MS))) {
      for (const node of this.nodes) supervisor.signal(node, 'SIGKILL')
      await until(() => this.nodes.every((n) => n.proc === undefined), EXIT_TIMEOUT_MS)
    }
    // Their last lines (the final counters) are read before anything is summed.
    await until(() => supervisor.allRead(), EXIT_TIMEOUT_MS)
    hosts.destroy()

    const record = this.record(endedAt, drops, clocks)
    const summary = summarize(record)
    writeRunFiles(this.o, record, summary, this.trace, (text) => this.io.line(text))
    return summary
  }

  /** What the parent recorded, for the summary: until `endedAt`, with the hosts' drop counters. */
  private record(
    endedAt: number,
    drops: Array<{ cut: number; loss: number }>,
    clocks: number[],
  ): RunRecord {
    const skews = this.nodes.map((n) => n.config.skewMs)
    const nodes = this.nodes.map((n) => n.id)
    return {
      mode: this.hosts!.mode,
      nodes,
      seconds: this.o.seconds,
      startedAt: this.startedAt!,
      endedAt,
      origin: this.origin,
      events: this.events,
      faults: this.faults,
      faultEvents: this.faultEvents,
      history: withLeases([...this.workload!.operations.values()], this.events),
      boots: this.boots,
      store: readStoreFile(join(this.dir!, 'counter.json')),
      anomalies: this.workload!.store.anomalies,
      messages: messageTotals(this.nodes),
      nftDrops: drops.reduce((s, d) => ({ cut: s.cut + d.cut, loss: s.loss + d.loss }), {
        cut: 0,
        loss: 0,
      }),
      clockSpreadMs: clockSpread(skews, clocks),
      errors: this.errors,
      timeBase: this.trace && timeBaseViolations(this.trace.document(nodes).events),
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
      const clocks = syncedClocks(this.nodes)
      return summarize({ ...this.record(endedAt, drops, clocks), interrupted: signal })
    } catch {
      return undefined
    }
  }

  /** Synchronous and idempotent: kills every process it started, deletes what it made. */
  cleanup(): void {
    if (this.cleaned) return
    this.cleaned = true
    killAll(this.nodes)
    this.hosts?.destroy()
    if (this.dir !== undefined && !this.o.keep) rmSync(this.dir, { recursive: true, force: true })
    else if (this.dir !== undefined) this.io.line(`kept ${this.dir}`)
    this.removeHandlers?.()
  }

  // ---- what the nodes report ------------------------------------------------------------------

  /** A fault, for the checkers and the trace. */
  private recordFault(f: FaultEvent): void {
    this.faultEvents.push(f)
    this.trace?.fault(f)
  }

  private onLine(node: Node, line: NodeLine): void {
    const supervisor = this.supervisor!
    const workload = this.workload!
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
          if (this.stopping) supervisor.send(node, { k: 'stop' })
          else if (this.startedAt !== undefined) supervisor.send(node, { k: 'go' })
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
      case 'invoke':
      case 'done':
        workload.onLine(
          node,
          line,
          this.stopping ? undefined : this.trap,
          () => this.cluster.currentLeader()?.leader,
        )
        return
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

  private onEvent(node: Node, line: Extract<NodeLine, { k: 'ev' }>): void {
    const { p, e, t } = line
    this.trace?.emit(t, node.id, p, e)
    if (p !== 'election' && p !== 'lock' && p !== 'sync') return // compose's own notices (--trace)
    this.events.push({ node: node.id, t, p, e })
    this.cluster.onEvent(node, t, p, e)
  }

  /** What the faults of the chaos script reach of this run. */
  private chaosContext(): ChaosContext {
    return {
      o: this.o,
      hosts: this.hosts!,
      cluster: this.cluster,
      supervisor: this.supervisor!,
      network: this.network,
      trap: this.trap,
      random: () => this.chaosRandom(),
      note: (text) => this.note(text),
      status: (text) => {
        this.chaosNow = text
      },
      recordFault: (f) => this.recordFault(f),
      newestToken: () => this.workload!.store.snapshot.newestToken,
    }
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
    const store = this.workload?.store
    const snapshot = store?.snapshot
    const terms = new Set(
      this.events.filter((x) => x.p === 'election' && x.e.type === 'leader').map((x) => x.e.term),
    )
    return {
      mode: this.hosts?.mode ?? 'loopback',
      elapsedMs: Math.min(this.workloadElapsed(), this.o.seconds * 1000),
      runMs: this.elapsed(),
      seconds: this.o.seconds,
      rows: this.nodes.map((n) => rowOf(n, this.network.cut.has(n.id))),
      counter: snapshot?.counter ?? 0,
      acknowledged: snapshot?.acknowledged ?? 0,
      fencingRejections: snapshot?.fencingRejections ?? 0,
      terms: terms.size,
      violations: store?.anomalies.length ?? 0,
      chaos: this.chaosNow,
      log: [...this.log],
    }
  }

  private draw(force = false): void {
    if (this.startedAt === undefined && !this.io.tty) return
    this.display.draw(this.view(), force)
  }
}

function safeDrops(hosts: Hosts): Array<{ cut: number; loss: number }> | undefined {
  try {
    return hosts.drops()
  } catch {
    return undefined
  }
}
