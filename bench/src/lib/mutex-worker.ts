/**
 * A mutex benchmark worker: one OS process, one lock client (or the centralized lock's
 * coordinator) per trial. Reads commands (JSON lines) on stdin, answers with events on stdout, and
 * exits when stdin closes, so it never outlives the benchmark.
 */
import { serveJsonCommands } from '../../../test-support/worker-process.js'
import { clientLoop, type Locker } from './mutex-locker.js'
import { oursLocker } from './mutex-ours.js'
import {
  contenderBurst,
  type TrialSpec,
  type WorkerCommand,
  type WorkerEvent,
} from './mutex-protocol.js'
import { redlockLocker, setNxLocker } from './mutex-redis.js'

// Whatever happens, the process ends: no benchmark run lasts this long.
setTimeout(() => process.exit(3), 30 * 60 * 1000).unref()

const emit = (event: WorkerEvent) => process.stdout.write(`${JSON.stringify(event)}\n`)

const makers: Record<TrialSpec['contender'], (spec: TrialSpec) => Promise<Locker>> = {
  centralized: oursLocker,
  'centralized-burst': (spec) => oursLocker(spec, { type: 'acquire' }, { burst: contenderBurst }),
  'centralized-codec': (spec) => oursLocker(spec, { type: 'acquire' }, { codec: 'centralized' }),
  'ricart-agrawala': oursLocker,
  'redis-setnx': setNxLocker,
  redlock: redlockLocker,
}

let current: { spec: TrialSpec; locker: Locker } | undefined

async function handle(command: WorkerCommand): Promise<void> {
  switch (command.cmd) {
    case 'setup': {
      if (current) await current.locker.close()
      const locker = await makers[command.spec.contender](command.spec)
      current = { spec: command.spec, locker }
      emit({ event: 'bound', trial: command.spec.trial, port: locker.port })
      return
    }
    case 'peers':
      current!.locker.connect(command.ports)
      emit({ event: 'ready', trial: command.trial })
      return
    case 'run': {
      const report = await clientLoop(current!.locker, command.run)
      emit({ event: 'done', trial: command.run.trial, report })
      return
    }
    case 'teardown': {
      const stats = current?.locker.stats?.()
      await current?.locker.close()
      current = undefined
      emit({ event: 'closed', trial: command.trial, stats })
      return
    }
  }
}

const trialOf = (c: WorkerCommand) =>
  c.cmd === 'setup' ? c.spec.trial : c.cmd === 'run' ? c.run.trial : c.trial

// Commands are handled one after the other, in the order they came.
serveJsonCommands<WorkerCommand>(handle, (command, e) => {
  emit({ event: 'failed', trial: trialOf(command), error: String(e) })
})
