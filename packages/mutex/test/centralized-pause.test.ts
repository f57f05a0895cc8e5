import { emitsOf, faultsOf, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type CentralizedEvent, centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'

/**
 * A client paused while its GRANT is on the way handles it only when it wakes up, long after the
 * coordinator's count of that grant ran out and the resource went to another. Before, its lease
 * counted from that moment: it entered beside the other holder, with an older token. Now its
 * lease counts from when its request left, so the old GRANT is late: it asks again and waits.
 */
describe('centralized: a GRANT handled after a pause', () => {
  it('is late: the node asks again instead of entering beside the next holder', () => {
    const net = new SimNetwork({ seed: 1, latency: 5 })
    net.launch([1, 2, 3], centralized({ coordinator: 1, leaseMs: 100, maxDelayMs: 50 }))
    net.request(3, { type: 'acquire' }) // GRANT sent at 5, due at 10
    net.at(7, () => net.pause(3))
    net.request(2, { type: 'acquire' }, 20) // granted when node 3's count runs out (155)
    net.at(400, () => net.resume(3))
    net.request(2, { type: 'release' }, 600)
    net.run({ until: 1000 })
    const events = emitsOf<CentralizedEvent>(net.trace)
    expect(checkMutualExclusion(events, faultsOf(net.trace)).violations).toEqual([])
    const of = (node: number, type: string) =>
      events.filter((e) => e.node === node && e.event.type === type).map((e) => e.t)
    expect(of(2, 'acquired')).toEqual([170]) // its GRANT (160) was late too: it waited 135 ms
    // Node 2 releases at 600; the GRANT at 610 answers the copy sent at 400, longer than a lease
    // ago: late too, so one more round trip before node 3 enters.
    expect(of(3, 'grant-late')).toEqual([400, 610])
    expect(of(3, 'acquired')).toEqual([620])
  })
})
