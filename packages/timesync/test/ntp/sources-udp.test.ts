/** queryNtpSources against four real servers of ours on loopback, one of them a falseticker. */
import { beforeEach, describe, expect, it } from 'vitest'
import { freePorts } from '../../../../test-support/processes.js'
import { queryNtpSources } from '../../src/ntp/sources-udp.js'
import type { NtpServerHandle } from '../../src/ntp/udp.js'
import { loopbackPeers } from '../support/loopback-peers.js'

const peers = loopbackPeers()
/** The servers of the current test, in the order started. */
let servers: NtpServerHandle[] = []
beforeEach(() => {
  servers = []
})
const serve = async (offsetMs: number) => servers.push(await peers.server({ offsetMs }))

describe('queryNtpSources (UDP, several servers)', () => {
  it('rejects a falseticker among 4 servers and trusts the other three', async () => {
    for (const offsetMs of [0, 0, 0, 500]) await serve(offsetMs)
    const result = await queryNtpSources(
      servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
      { samples: 2 },
    )
    expect(result.majority).toBe(true)
    expect(result.falsetickers.map((s) => s.port)).toEqual([servers[3]!.port])
    expect(result.truechimers.map((s) => s.port)).toEqual(servers.slice(0, 3).map((s) => s.port))
    // The three honest servers share our clock: the combined offset is 0 within its bound.
    expect(Math.abs(result.offsetMs!)).toBeLessThanOrEqual(result.errorBoundMs! + 0.5)
  })

  it('reports a server that does not answer with its error, and no majority of two that disagree', async () => {
    await serve(0)
    await serve(300)
    const [silent] = await freePorts(1)
    const result = await queryNtpSources(
      [
        ...servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
        { host: '127.0.0.1', port: silent! },
      ],
      { samples: 1, timeoutMs: 1500 },
    )
    expect(result.outcomes.map((o) => o.ok)).toEqual([true, true, false])
    expect(result.majority).toBe(false)
    expect(result.offsetMs).toBeUndefined()
  })
})
