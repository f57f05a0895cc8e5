/**
 * A goodput worker: one process inside a network namespace, spawned by the goodput benchmark with
 * `<sender|receiver> <own address> <peer address>`. It reads commands (JSON lines) on stdin and
 * answers with events on stdout. It exits when stdin closes, so it never outlives its parent.
 */
import { serveJsonCommands } from '../../../test-support/worker-process.js'
import type { RunSpec, RunSummary, WorkerCommand, WorkerEvent } from './goodput-protocol.js'
import type { RunSide, SideContext } from './goodput-side.js'
import { receiveTcp, sendTcp } from './goodput-tcp.js'
import { receiveUdp, sendUdp } from './goodput-udp.js'

// Whatever happens, the process ends: no benchmark run lasts this long.
const maxLifetimeMs = 60 * 60 * 1000
setTimeout(() => process.exit(3), maxLifetimeMs).unref()

const [role, self, peer] = process.argv.slice(2)
if ((role !== 'sender' && role !== 'receiver') || !self || !peer) {
  console.error('usage: goodput-worker <sender|receiver> <own address> <peer address>')
  process.exit(2)
}

const emit = (event: WorkerEvent) => process.stdout.write(`${JSON.stringify(event)}\n`)
const ctx: SideContext = { self, peer, emit }
const starters = {
  sender: { udp: sendUdp, tcp: sendTcp },
  receiver: { udp: receiveUdp, tcp: receiveTcp },
}

interface Current {
  run: number
  side: Promise<RunSide>
  selfStop: NodeJS.Timeout
}
let current: Current | undefined

function start(spec: RunSpec): void {
  const side = starters[role as 'sender' | 'receiver'][spec.contender](spec, ctx)
  // If the parent never says stop (it died, or lost track), the run ends anyway.
  const selfStop = setTimeout(() => void stop(spec.run), spec.selfStopMs)
  current = { run: spec.run, side, selfStop }
  side.then(
    () => {
      if (role === 'receiver') emit({ event: 'ready', run: spec.run })
    },
    (e: unknown) => emit({ event: 'failed', run: spec.run, error: String(e) }),
  )
}

async function stop(run: number): Promise<void> {
  if (current?.run !== run) {
    emit({ event: 'stopped', run, summary: { error: 'no such run' } })
    return
  }
  const { side, selfStop } = current
  current = undefined
  clearTimeout(selfStop)
  let summary: RunSummary
  try {
    summary = await (await side).stop()
  } catch (e) {
    summary = { error: String(e) }
  }
  emit({ event: 'stopped', run, summary })
}

async function handle(command: WorkerCommand): Promise<void> {
  if (command.cmd === 'stop') return stop(command.run)
  if (current) await stop(current.run) // one run at a time
  start(command.spec)
}

// Commands are handled one after the other, in the order they came.
serveJsonCommands<WorkerCommand>(handle, (_, e) => console.error(e))
