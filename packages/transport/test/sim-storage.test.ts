import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import {
  createRandom,
  type NodeId,
  type Protocol,
  SimNetwork,
  type TraceEvent,
} from '../src/index.js'
import { traceOfType } from '../src/testing/index.js'

type Issued = { type: 'issued'; token: number }

/**
 * Hands out fencing tokens, one every `period` ms: the last one is kept in stable storage, so a
 * restart continues from it. Each token is also sent to the other nodes, after the write.
 */
const tokenIssuer =
  (period: number) =>
  (_self: NodeId): Protocol<Issued, never, Issued> => ({
    start(ctx) {
      ctx.setTimer('issue', period)
    },
    onTimer(_key, ctx) {
      const token = ((ctx.storage.get('token') as number | undefined) ?? 0) + 1
      ctx.storage.set('token', token)
      ctx.emit({ type: 'issued', token })
      ctx.broadcast({ type: 'issued', token })
      ctx.setTimer('issue', period)
    },
    onMessage() {},
  })

/** A small random fault plan: a few crashes and restarts, maybe a crash inside a step. */
function faultPlan(net: SimNetwork, seed: number, options: { wipeStorage: boolean }) {
  const rand = createRandom(`storage-plan/${seed}`)
  let t = 0
  for (let i = rand.int(1, 3); i > 0; i--) {
    const victim = rand.int(1, 2)
    t += rand.int(1, 25)
    const down = t
    const up = down + rand.int(0, 10)
    t = up
    if (rand.next() < 0.3) net.at(down, () => net.crashBeforeCommit(victim))
    else net.at(down, () => !net.isCrashed(victim) && net.crash(victim))
    net.at(up, () => {
      if (net.isCrashed(victim)) net.restart(victim, { wipeStorage: options.wipeStorage })
    })
  }
  return t
}

/** Tokens each node issued, from the events it emitted (what the outside world saw). */
function issuedBy(net: SimNetwork): Map<NodeId, number[]> {
  const tokens = new Map<NodeId, number[]>()
  net.onEmit((node, event) => {
    tokens.set(node, [...(tokens.get(node) ?? []), (event as Issued).token])
  })
  return tokens
}

function runPlan(seed: number, wipeStorage: boolean) {
  const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 4 } })
  const tokens = issuedBy(net)
  net.launch([1, 2], tokenIssuer(3))
  const end = faultPlan(net, seed, { wipeStorage })
  net.run({ until: end + 20 })
  return { net, tokens }
}

const repeats = (tokens: number[]) => tokens.filter((t, i) => tokens.indexOf(t) !== i)

describe('stable storage in the simulator', () => {
  it('survives crash and restart; the store is per node; the trace shows every commit', () => {
    const net = new SimNetwork({ seed: 1 })
    const tokens = issuedBy(net)
    net.launch([1, 2], tokenIssuer(10))
    net.at(25, () => net.crash(1))
    net.at(40, () => net.restart(1))
    net.run({ until: 65 })
    expect(tokens.get(1)).toEqual([1, 2, 3, 4]) // at 10, 20, then 50, 60 after the restart
    expect(tokens.get(2)).toEqual([1, 2, 3, 4, 5, 6])
    expect(net.storageOf(1)).toEqual({ token: 4 })
    expect(net.storageOf(2)).toEqual({ token: 6 })
    const commits = traceOfType(net.trace, 'storage').filter((e) => e.node === 1)
    expect(commits.map((e) => [e.t, e.set])).toEqual([
      [10, { token: 1 }],
      [20, { token: 2 }],
      [50, { token: 3 }],
      [60, { token: 4 }],
    ])
    expect(commits.every((e) => e.outcome === 'committed')).toBe(true)
  })

  it('a token kept in storage never repeats, over 1,000 random crash and restart plans', () => {
    let crashesInsideSteps = 0
    const seeds = seedList(1000)
    forSeeds(seeds, (seed) => {
      const { net, tokens } = runPlan(seed, false)
      for (const [node, issued] of tokens) {
        expect(repeats(issued), `node ${String(node)} issued ${issued.join(',')}`).toEqual([])
        expect(issued).toEqual([...issued].sort((a, b) => a - b))
      }
      // Peers never hear a token twice from the same node either.
      const heard = new Map<string, number[]>()
      for (const e of net.trace) {
        if (e.type !== 'send') continue
        const key = `${String(e.from)}->${String(e.to)}`
        heard.set(key, [...(heard.get(key) ?? []), (e.msg as Issued).token])
      }
      for (const [link, sent] of heard) expect(repeats(sent), link).toEqual([])
      crashesInsideSteps += net.trace.filter(
        (e) => e.type === 'storage' && e.outcome === 'discarded',
      ).length
    })
    expect(crashesInsideSteps).toBeGreaterThan(seeds.length / 10) // plans did crash inside steps
  })

  it('with disk loss a token can repeat, and a seed shows it', () => {
    let found: { seed: number; node: NodeId; issued: number[] } | undefined
    for (let seed = 1; seed <= 200 && found === undefined; seed++) {
      const { net, tokens } = runPlan(seed, true)
      for (const [node, issued] of tokens) {
        if (repeats(issued).length === 0) continue
        // The repeat comes after a restart that lost the disk.
        expect(
          net.trace.some((e) => e.type === 'restart' && e.node === node && e.storageWiped),
        ).toBe(true)
        found = { seed, node, issued }
        break
      }
    }
    expect(found, 'some seed in 1..200 repeats a token after losing the disk').toBeDefined()
    expect(repeats(found!.issued).length).toBeGreaterThan(0)
    // ...and the same seed without disk loss does not.
    const again = runPlan(found!.seed, false)
    for (const issued of again.tokens.values()) expect(repeats(issued)).toEqual([])
  })

  it('a crash inside a step loses its writes and what it sent after them; the restart reads the previous value', () => {
    const net = new SimNetwork({ seed: 1 })
    const tokens = issuedBy(net)
    net.launch([1, 2], tokenIssuer(10))
    const readAtStart: unknown[] = []
    net.crashBeforeCommit(1, (step) => step.writes.get('token') === 3)
    net.at(45, () => {
      expect(net.isCrashed(1)).toBe(true) // crashed at 30, inside the step that wrote 3
      expect(net.storageOf(1)).toEqual({ token: 2 }) // what the last committed step wrote
      readAtStart.push(net.storageOf(1).token)
      net.restart(1)
    })
    net.run({ until: 70 })
    expect(readAtStart).toEqual([2])
    expect(tokens.get(1)).toEqual([1, 2, 3, 4]) // 3 is issued once: at 55, after the restart
    const at30 = net.trace.filter((e) => e.t === 30 && 'node' in e && e.node === 1)
    expect(at30.map((e) => e.type)).toEqual(['timer-fire', 'timer-set', 'storage', 'crash'])
    expect(at30[2]).toMatchObject({ set: { token: 3 }, deleted: [], outcome: 'discarded' })
    // Node 1 sent nothing at 30: its message for token 3 waited for a commit that never came.
    expect(net.trace.filter((e) => e.type === 'send' && e.from === 1 && e.t === 30)).toEqual([])
    expect(net.trace.filter((e) => e.type === 'error')).toEqual([])
  })

  it('a crash planned for the step of `start` leaves the node down', () => {
    const net = new SimNetwork({ seed: 1 })
    const starts: number[] = []
    const booter = (): Protocol<never, never, string> => ({
      start(ctx) {
        const boots = ((ctx.storage.get('boots') as number | undefined) ?? 0) + 1
        ctx.storage.set('boots', boots)
        starts.push(boots)
        ctx.setTimer('never while down', 5)
      },
      onMessage() {},
      onTimer(key, ctx) {
        ctx.emit(key)
      },
    })
    net.launch([1], booter)
    net.crash(1)
    net.crashBeforeCommit(1, (step) => step.input.kind === 'start')
    net.restart(1)
    expect(net.isCrashed(1)).toBe(true)
    net.run()
    expect(net.trace.filter((e) => e.type === 'timer-fire')).toEqual([])
    net.restart(1)
    net.run()
    expect(starts).toEqual([1, 2, 2]) // the second boot was never committed
    expect(net.storageOf(1)).toEqual({ boots: 2 })
    expect(net.trace.filter((e) => e.type === 'emit').length).toBe(1)
  })

  it('a coordinator may also forget on purpose: volatile grants are gone after a restart, stored ones are not', () => {
    type Req = { grant: NodeId }
    const coordinator = (durable: boolean) => (): Protocol<never, Req, string> => {
      let granted: NodeId | undefined // volatile: what the quorum mutex coordinators forget
      return {
        start(ctx) {
          const holder = durable ? (ctx.storage.get('holder') as NodeId | undefined) : granted
          ctx.emit(`holder after start: ${holder === undefined ? 'none' : String(holder)}`)
        },
        onMessage() {},
        onRequest(req, ctx) {
          granted = req.grant
          if (durable) ctx.storage.set('holder', req.grant)
        },
      }
    }
    for (const durable of [false, true]) {
      const net = new SimNetwork({ seed: 1 })
      const seen: unknown[] = []
      net.onEmit((_n, e) => seen.push(e))
      const group = net.launch([1], coordinator(durable))
      group.request(1, { grant: 7 })
      net.at(5, () => net.crash(1))
      net.at(6, () => net.restart(1))
      net.run()
      expect(seen).toEqual([
        'holder after start: none',
        `holder after start: ${durable ? 7 : 'none'}`,
      ])
    }
  })

  it('restart({ wipeStorage }) empties the store and says so in the trace', () => {
    const net = new SimNetwork({ seed: 1 })
    net.launch([1], tokenIssuer(10))
    net.run({ until: 25 })
    expect(net.storageOf(1)).toEqual({ token: 2 })
    net.crash(1)
    net.restart(1, { wipeStorage: true })
    expect(net.storageOf(1)).toEqual({})
    const restart = net.trace.filter(
      (e): e is Extract<TraceEvent, { type: 'restart' }> => e.type === 'restart',
    )
    expect(restart).toEqual([{ t: 25, type: 'restart', node: 1, storageWiped: true }])
  })
})
