/**
 * An election benchmark worker: one OS process (on loopback, or inside a network namespace), one
 * node of the group per trial. Reads commands (JSON lines) on stdin, answers with events on stdout
 * and exits when stdin closes, so it never outlives the benchmark.
 */
import { serveJsonCommands } from '../../../test-support/worker-process.js'
import { discoverNode } from './election-discover.js'
import type { ElectionNode, NodeMaker } from './election-node.js'
import { oursNode } from './election-ours.js'
import {
  type Contender,
  type NodeSpec,
  nowMs,
  type WorkerCommand,
  type WorkerEvent,
} from './election-protocol.js'

// Whatever happens, the process ends: no benchmark run lasts this long.
setTimeout(() => process.exit(3), 30 * 60 * 1000).unref()

const emit = (event: WorkerEvent) => process.stdout.write(`${JSON.stringify(event)}\n`)

const makers: Record<Contender, NodeMaker> = {
  bully: oursNode,
  'bully-phi': oursNode,
  majority: oursNode,
  'majority-no-prevote': oursNode,
  'node-discover': discoverNode,
}

let current: { spec: NodeSpec; node: ElectionNode } | undefined

async function handle(command: WorkerCommand): Promise<void> {
  switch (command.cmd) {
    case 'setup': {
      if (current) await current.node.close()
      current = undefined
      const { spec } = command
      // A late report of a node being torn down is not the next trial's.
      const node = await makers[spec.contender](
        spec,
        (view) => {
          if (current?.spec === spec)
            emit({ event: 'view', trial: spec.trial, id: spec.id, ...view, at: nowMs() })
        },
        (mark) => {
          if (current?.spec === spec)
            emit({ event: 'mark', trial: spec.trial, id: spec.id, ...mark, at: nowMs() })
        },
      )
      current = { spec, node }
      emit({ event: 'bound', trial: spec.trial, port: node.port })
      return
    }
    case 'start':
      if (current?.spec.trial !== command.trial) throw new Error('start before setup')
      current.node.start(command.peers)
      emit({ event: 'started', trial: command.trial })
      return
    case 'teardown': {
      const node = current?.node
      current = undefined
      await node?.close()
      emit({ event: 'closed', trial: command.trial })
      return
    }
  }
}

const trialOf = (c: WorkerCommand) => (c.cmd === 'setup' ? c.spec.trial : c.trial)

// Commands are handled one after the other, in the order they came.
serveJsonCommands<WorkerCommand>(handle, (command, e) => {
  emit({ event: 'failed', trial: trialOf(command), error: String(e) })
})
emit({ event: 'hello', pid: process.pid })
