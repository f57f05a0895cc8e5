/**
 * A child process for the file storage crash test: `node --import tsx counter-process.ts <file> <max>`.
 * Runs a protocol that increments a counter kept in a file store, as fast as it can, up to <max>.
 * Prints `START <n>` with the value it read back, then each value once its commit has returned
 * (the protocol emits it after writing it, so the runtime releases it after the commit). stdout is a
 * pipe, which Node writes synchronously on Linux: a printed value was durable before it was printed.
 */
import { type Protocol, runProtocol, type TimerScheduler, type Transport } from '../../src/index.js'
import { openFileStorage } from '../../src/storage-file/index.js'

const [path, maxArgument] = process.argv.slice(2)
if (path === undefined || maxArgument === undefined)
  throw new Error('usage: counter-process.ts <file> <max>')
const max = Number(maxArgument)

type Event = { type: 'start'; count: number } | { type: 'committed'; count: number }

const counter: Protocol<never, never, Event> = {
  start(ctx) {
    ctx.emit({ type: 'start', count: (ctx.storage.get('count') as number | undefined) ?? 0 })
    ctx.setTimer('next', 0)
  },
  onMessage() {},
  onTimer(_key, ctx) {
    const count = ((ctx.storage.get('count') as number | undefined) ?? 0) + 1
    ctx.storage.set('count', count)
    ctx.emit({ type: 'committed', count })
    if (count < max) ctx.setTimer('next', 0)
  },
}

// Nobody to talk to: the counter only needs a runtime and its store.
const alone: Transport<never> = {
  self: 'counter',
  closed: false,
  send: () => {
    throw new Error('the counter sends nothing')
  },
  onMessage: () => () => {},
  close: async () => {},
}
// Ref'd timers (the default ones are unref'd): they keep this process alive until <max>.
const timers: TimerScheduler = {
  schedule: (ms, fire) => setTimeout(fire, ms),
  cancel: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

runProtocol(counter, {
  transport: alone,
  members: ['counter'],
  storage: openFileStorage(path),
  timers,
  onEvent: (event) => {
    process.stdout.write(event.type === 'start' ? `START ${event.count}\n` : `${event.count}\n`)
  },
  onError: (error) => {
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  },
})
