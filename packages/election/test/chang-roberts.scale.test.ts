import { createRandom, type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type ChangRobertsEvent, changRoberts } from '../src/chang-roberts/index.js'

const N = 10_000

/** 1..n in a seeded order round the ring. */
function shuffledRing(n: number, seed: number): number[] {
  const random = createRandom(`scale/${seed}`)
  const ring = Array.from({ length: n }, (_, i) => i + 1)
  for (let i = ring.length - 1; i > 0; i--) {
    const j = random.int(0, i)
    ;[ring[i], ring[j]] = [ring[j]!, ring[i]!]
  }
  return ring
}

/**
 * One election among n simulated nodes. Each node is launched on its own and finds the ring in
 * the `ring` option, so no node has the whole group as its peers (Chang-Roberts needs only its
 * successor).
 */
function electAtScale(n: number, initiators: 'all' | 'one') {
  const ring = shuffledRing(n, 1)
  const net = new SimNetwork({ seed: 1, trace: false })
  const followed = new Map<NodeId, unknown>()
  const factory = changRoberts({
    ring,
    startAll: initiators === 'all',
    // One beat when the leader is elected, none while the ELECTED goes round.
    heartbeat: { intervalMs: 60_000 },
  })
  const started = performance.now()
  for (const id of ring) net.addNode(id) // every successor exists before the first start sends
  const onEmit = (node: NodeId, event: ChangRobertsEvent) => {
    if (event.type === 'leader') followed.set(node, event.leader)
  }
  for (const id of ring) net.launch([id], factory, { onEmit })
  if (initiators === 'one') net.request(ring[0]!, { type: 'start' })
  // At 1 ms a hop: at most n - 1 hops to the best id, n round, n for ELECTED.
  net.run({ until: 3 * n + 10 })
  const ms = performance.now() - started
  const { byType } = net.stats
  const theory = initiators === 'all' ? ` (n·H_n = ${(n * harmonic(n)).toFixed(0)})` : ''
  console.log(
    `Chang-Roberts, ${n} nodes, ${initiators === 'all' ? 'all initiators' : 'one initiator'}: ${ms.toFixed(0)} ms wall, ${byType.election} ELECTION${theory}, ${byType.elected} ELECTED, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
  )
  return { followed, byType }
}

function harmonic(n: number): number {
  let sum = 0
  for (let k = 1; k <= n; k++) sum += 1 / k
  return sum
}

describe('Chang-Roberts at scale', () => {
  it(`${N} nodes, every one an initiator: all follow the highest id`, () => {
    const { followed, byType } = electAtScale(N, 'all')
    expect(followed.size).toBe(N)
    for (const leader of followed.values()) expect(leader).toBe(N)
    expect(byType.elected).toBe(N)
  })

  it(`${N} nodes, one initiator: all follow the highest id, at most 3n - 1 messages`, () => {
    const { followed, byType } = electAtScale(N, 'one')
    expect(followed.size).toBe(N)
    for (const leader of followed.values()) expect(leader).toBe(N)
    expect((byType.election ?? 0) + (byType.elected ?? 0)).toBeLessThanOrEqual(3 * N - 1)
  })
})
