/**
 * Our NTP server alone in a process, for the tests that attack it from outside: prints
 * `READY <port>`, answers `stats` on stdin with `STATS {"answered":..,"rejected":..,"unsent":..}`,
 * and exits on SIGTERM or when stdin closes (the test that spawned it is gone).
 */
import { onParentLines, workerConfig } from '../../../../../test-support/worker-process.js'
import { createNtpServer } from '../../../src/ntp/udp.js'

const config = workerConfig<{ offsetMs?: number }>({})
const server = await createNtpServer({ port: 0, offsetMs: config.offsetMs ?? 0 })
console.log(`READY ${server.port}`)

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await server.close()
  process.exit(0)
}
onParentLines({
  line: (line) => {
    if (line.trim() !== 'stats') return
    const { answered, rejected, unsent } = server
    console.log(`STATS ${JSON.stringify({ answered, rejected, unsent })}`)
  },
  close: stop,
})
process.on('SIGTERM', stop)
