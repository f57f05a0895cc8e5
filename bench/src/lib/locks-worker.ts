/**
 * A lock-family benchmark worker (`mutex.rw`, `mutex.semaphore`): one OS process, one lock client
 * (or the centralized lock's coordinator) per trial. Reads commands (JSON lines) on stdin, answers
 * with events on stdout, and exits when stdin closes, so it never outlives the benchmark.
 */
import type { MutexRequest } from '@sd/mutex'
import { serveJsonCommands } from '../../../test-support/worker-process.js'
import { familyLoop } from './locks-loop.js'
import type { ClientRole, FamilyCommand, FamilyEvent, FamilyTrialSpec } from './locks-protocol.js'
import { redisRwLocker } from './locks-redis-rw.js'
import { redisSemaphoreLocker } from './locks-redis-semaphore.js'
import type { Locker } from './mutex-locker.js'
import { oursLocker } from './mutex-ours.js'

// Whatever happens, the process ends: no benchmark run lasts this long.
setTimeout(() => process.exit(3), 30 * 60 * 1000).unref()

const emit = (event: FamilyEvent) => process.stdout.write(`${JSON.stringify(event)}\n`)

/** What our clients ask of `centralized()`, by the contract of @sd/mutex (MutexRequest). */
function oursRequest(asks: ClientRole | undefined): MutexRequest {
  if (asks?.kind === 'reader') return { type: 'acquire', mode: 'shared' }
  if (asks?.kind === 'permits')
    return { type: 'acquire', permits: { take: asks.take, of: asks.of } }
  return { type: 'acquire' } // the writer, and the coordinator (which never asks)
}

function makeLocker(spec: FamilyTrialSpec): Promise<Locker> {
  if (spec.contender === 'centralized')
    return oursLocker(
      { ...spec, contender: 'centralized' },
      oursRequest(spec.asks),
      spec.oursOptions,
    )
  if (!spec.asks) throw new Error(`${spec.contender} has no coordinator`)
  if (spec.contender === 'redis-rw') return redisRwLocker(spec, spec.asks)
  return redisSemaphoreLocker(spec, spec.asks)
}

let current: Locker | undefined

async function handle(command: FamilyCommand): Promise<void> {
  switch (command.cmd) {
    case 'setup': {
      if (current) await current.close()
      current = undefined
      current = await makeLocker(command.spec)
      emit({ event: 'bound', trial: command.spec.trial, port: current.port })
      return
    }
    case 'peers':
      current!.connect(command.ports)
      emit({ event: 'ready', trial: command.trial })
      return
    case 'run': {
      const report = await familyLoop(current!, command.run)
      emit({ event: 'done', trial: command.run.trial, report })
      return
    }
    case 'teardown': {
      await current?.close()
      current = undefined
      emit({ event: 'closed', trial: command.trial })
      return
    }
  }
}

const trialOf = (c: FamilyCommand) =>
  c.cmd === 'setup' ? c.spec.trial : c.cmd === 'run' ? c.run.trial : c.trial

// Commands are handled one after the other, in the order they came.
serveJsonCommands<FamilyCommand>(handle, (command, e) => {
  emit({ event: 'failed', trial: trialOf(command), error: String(e) })
})
