/**
 * The node processes: spawn one on its host (through the hosts' command prefix), read its stdout
 * (JSON lines, wire.ts) and stderr, write to its stdin, signal it, kill it, restart it with the
 * same state file; and tell a death the parent caused from one of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { FaultEvent } from '@sd/transport'
import { type Node, ZERO } from './cluster-state.js'
import type { Hosts } from './hosts.js'
import { machineNow, type NodeLine, type ParentLine, parseLine } from './wire.js'

const WORKER = fileURLToPath(new URL('./node/worker.ts', import.meta.url))
const APP_DIR = fileURLToPath(new URL('..', import.meta.url))

export interface SupervisorHooks {
  /** A line of the node's current incarnation. */
  line(node: Node, line: NodeLine): void
  /** A crash, a pause or a resume, for the checkers and the trace. */
  fault(f: FaultEvent): void
  /** A node failed on its own (it could not start, it exited unasked). */
  failed(why: string): void
  /** A line of the run's log. */
  note(text: string): void
  /** Whether the run is stopping (a node that exits then, asked to, is `stopped`, not `down`). */
  stopping(): boolean
}

export class Supervisor {
  /** Node processes whose output may still hold lines (their pipes are not closed yet). */
  private unread = new Set<ChildProcess>()

  constructor(
    private readonly hosts: Hosts,
    private readonly hooks: SupervisorHooks,
  ) {}

  /** Whether every line of every process that exited was read. */
  allRead(): boolean {
    return this.unread.size === 0
  }

  spawn(node: Node): void {
    const prefix = this.hosts.exec(node.index)
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
      this.hooks.failed(`${node.id} could not be started: ${error.message}`)
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
        counters.resent = line.resent
        counters.dropped = line.dropped
      }
      if (line !== undefined && node.proc === proc) this.hooks.line(node, line)
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
      node.state = this.hooks.stopping() && node.expectExit ? 'stopped' : 'down'
      if (!node.expectExit) {
        this.hooks.fault({ t: machineNow(), type: 'crash', node: node.id })
        this.hooks.failed(
          `${node.id} exited on its own (${signal ?? `code ${code}`})${node.stderr.length > 0 ? `: ${node.stderr.slice(-5).join(' | ')}` : ''}`,
        )
      }
    })
  }

  /** Starts `node` again, with its state file. */
  restart(node: Node): void {
    node.restarts++
    this.hooks.note(`restarting ${node.id} with its state file`)
    this.spawn(node)
  }

  send(node: Node, line: ParentLine): void {
    if (node.proc?.stdin?.writable) node.proc.stdin.write(`${JSON.stringify(line)}\n`)
  }

  signal(node: Node, signal: NodeJS.Signals): void {
    if (node.pid === undefined) return
    try {
      process.kill(node.pid, signal)
    } catch {}
    if (signal === 'SIGSTOP' && node.state !== 'paused') {
      node.state = 'paused'
      this.hooks.fault({ t: machineNow(), type: 'pause', node: node.id })
    }
    if (signal === 'SIGCONT' && node.state === 'paused') {
      node.state = 'up'
      // How much waited for it is not known outside the process.
      this.hooks.fault({ t: machineNow(), type: 'resume', node: node.id, backlog: 0 })
    }
  }

  /** SIGKILL, as a fault: its exit is expected. */
  kill(node: Node): void {
    node.expectExit = true
    if (node.proc !== undefined) this.hooks.fault({ t: machineNow(), type: 'crash', node: node.id })
    this.signal(node, 'SIGKILL')
    node.state = 'down'
  }
}

/** Synchronous, for the cleanup: SIGKILL every node process still running, by PID. */
export function killAll(nodes: readonly Node[]): void {
  for (const node of nodes) {
    if (node.pid !== undefined && node.proc !== undefined) {
      try {
        process.kill(node.pid, 'SIGKILL')
      } catch {}
    }
  }
}
