import { describe, expect, it } from 'vitest'
import { flood } from '../../../test-support/explore-protocols.js'
import { tokenRing } from '../../../test-support/liveness-protocols.js'
import { canonicalKey, createRandom, SimNetwork } from '../src/index.js'

type Random = ReturnType<typeof createRandom>

/** One random step: mostly a choice taken, sometimes a pause, a duplicate or a clock step. */
function randomStep(net: SimNetwork, random: Random): boolean {
  const choices = net.choices('any-order')
  if (choices.length === 0) return false
  const pick = choices[random.int(0, choices.length - 1)]!
  const roll = random.next()
  if (roll < 0.05 && !net.isPaused(2)) {
    net.pause(2)
    net.at(net.now + 40, () => net.resume(2))
  } else if (roll < 0.08 && pick.kind === 'deliver') net.take(pick.key, 'duplicate')
  else if (roll < 0.1) net.stepClock(3, -5)
  else net.take(pick.key)
  return true
}

/** Three nodes of a token ring with a timer, then up to `steps` random steps. */
function walk(seed: number, steps: number, visit: (net: SimNetwork) => void = () => {}) {
  const net = new SimNetwork({ seed, trace: false })
  net.launch([1, 2, 3], tokenRing(3, [2, 3], 30))
  const random = createRandom(`walk/${seed}`)
  for (let i = 0; i < steps; i++) {
    visit(net)
    if (!randomStep(net, random)) break
  }
  return net
}

/** The fingerprints and stats along `steps` more random steps. */
function goOn(net: SimNetwork, seed: number, steps: number): string[] {
  const random = createRandom(`on/${seed}`)
  const seen: string[] = []
  for (let i = 0; i < steps; i++) {
    // Not `pending`: it counts cancelled events until they are skipped, and a restore drops them.
    const next = net.choices('any-order').map((c) => c.key)
    seen.push(canonicalKey([net.fingerprint(), net.now, next, net.stats]))
    if (!randomStep(net, random)) break
  }
  return seen
}

describe('SimNetwork checkpoints and key fingerprints', () => {
  it('the key fingerprint writes what canonicalKey writes of the fingerprint', () => {
    for (let seed = 1; seed <= 20; seed++)
      walk(seed, 60, (net) => {
        expect(canonicalKey(net.keyFingerprint())).toBe(canonicalKey(net.fingerprint()))
      })
    // Crashed nodes too.
    const net = walk(3, 10)
    net.crash(1)
    expect(canonicalKey(net.keyFingerprint())).toBe(canonicalKey(net.fingerprint()))
  })

  it('a restored checkpoint goes on as the network it was saved from, more than once', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const net = walk(seed, 15)
      const saved = net.checkpoint()
      expect(saved).toBeDefined()
      const first = goOn(net, seed, 30)
      net.restoreCheckpoint(saved!)
      expect(goOn(net, seed, 30)).toEqual(first)
      net.restoreCheckpoint(saved!)
      expect(goOn(net, seed, 30)).toEqual(first)
      // After a step or two, most nodes ran no handler: their instances are kept as they are.
      for (let k = 1; k <= 3; k++) {
        net.restoreCheckpoint(saved!)
        goOn(net, seed + 1000 * k, k)
        net.restoreCheckpoint(saved!)
        expect(goOn(net, seed, 30)).toEqual(first)
      }
    }
  })

  it('restores a node that ran a handler once per load, and keeps that instance while it runs none', () => {
    let made = 0
    const ring = tokenRing(3, [2, 3], 30)
    const net = new SimNetwork({ seed: 1, trace: false })
    net.launch([1, 2, 3], (self) => {
      made++
      return ring(self)
    })
    const saved = net.checkpoint()!
    const first = goOn(net, 1, 20)
    const afterRun = made
    net.restoreCheckpoint(saved)
    const restored = made - afterRun
    expect(restored).toBeGreaterThan(0)
    // Nothing ran since: the restored instances are the checkpoint's now, and stay.
    net.restoreCheckpoint(saved)
    net.restoreCheckpoint(saved)
    expect(made - afterRun).toBe(restored)
    expect(goOn(net, 1, 20)).toEqual(first)
    net.restoreCheckpoint(saved)
    expect(goOn(net, 1, 20)).toEqual(first)
  })

  it('hands restore() its saved snapshot itself only when the protocol declares restoreCopies', () => {
    for (const copies of [false, true]) {
      const ring = tokenRing(3, [2, 3], 30)
      const given: unknown[] = []
      const net = new SimNetwork({ seed: 1, trace: false })
      net.launch([1, 2, 3], (self) => {
        const p = ring(self)
        const restore = p.restore!.bind(p)
        return {
          ...p,
          restoreCopies: copies,
          restore: (s: unknown) => {
            if (self === 1) given.push(s)
            restore(structuredClone(s)) // the ring's own restore may keep what it takes
          },
        }
      })
      const saved = net.checkpoint()!
      const first = goOn(net, 1, 20)
      for (let k = 0; k < 2; k++) {
        net.restoreCheckpoint(saved)
        expect(goOn(net, 1, 20)).toEqual(first)
      }
      expect(given).toHaveLength(2)
      expect(given[1]).toEqual(given[0])
      expect(given[1] === given[0]).toBe(copies)
    }
  })

  it('keeps the snapshot itself as the saved state only when the protocol declares snapshotCopies', () => {
    for (const copies of [false, true]) {
      const ring = tokenRing(3, [2, 3], 30)
      const taken: unknown[] = []
      const given: unknown[] = []
      const net = new SimNetwork({ seed: 1, trace: false })
      net.launch([1, 2, 3], (self) => {
        const p = ring(self)
        const snapshot = p.snapshot!.bind(p)
        const restore = p.restore!.bind(p)
        return {
          ...p,
          snapshotCopies: copies,
          restoreCopies: true,
          snapshot: () => {
            // A copy of its own, so the promise holds whatever the ring's snapshot shares.
            const s = structuredClone(snapshot())
            if (self === 1) taken.push(s)
            return s
          },
          restore: (s: unknown) => {
            if (self === 1) given.push(s)
            restore(structuredClone(s))
          },
        }
      })
      const saved = net.checkpoint()!
      const first = goOn(net, 1, 20)
      net.restoreCheckpoint(saved)
      expect(goOn(net, 1, 20)).toEqual(first)
      expect(given).toHaveLength(1)
      expect(given[0]).toEqual(taken[0])
      expect(given[0] === taken[0]).toBe(copies)
    }
  })

  it('is undefined when a running protocol has no restore', () => {
    const net = new SimNetwork()
    net.launch([1, 2], (self) => {
      const { restore: _, ...rest } = flood(true)(self)
      return rest
    })
    expect(net.checkpoint()).toBeUndefined()
    const crashed = new SimNetwork()
    crashed.launch([1, 2], flood(true))
    expect(crashed.checkpoint()).toBeDefined()
  })
})
