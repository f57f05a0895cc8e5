/**
 * A simulated hostile peer: from well-formed sample messages of a protocol it makes random and
 * hostile ones (wrong types, missing fields, NaN / Infinity / 1e308 / -1, huge arrays and
 * strings, unknown types, own `__proto__` / `constructor` / `prototype` keys) and sends them to
 * the other nodes, as a protocol the simulator runs like any other. Each message says whether it
 * is certainly malformed, so a test can demand that every such one is visibly refused.
 */
import type { Ctx, NodeId, Protocol } from '@sd/transport'

export interface HostileMessage {
  msg: unknown
  /** No protocol may accept it (a lax guard would): a refusal must be visible. */
  malformed: boolean
  /** What was done to the sample, for a failure message. */
  how: string
}

/** Values that fit no field of any sd message. */
const NEVER_VALID: unknown[] = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]
/** Values of the wrong type for a number field, and wrong or absurd ones for others. */
const HOSTILE: unknown[] = [
  null,
  undefined,
  true,
  '1',
  '',
  [],
  {},
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53,
  Number.MAX_VALUE,
  0,
]
const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype']

type Path = Array<string | number>

/** Every path to a value inside `value` (objects and arrays), the root excluded. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return []
  const out: Path[] = []
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value)
  for (const [key, v] of entries) {
    if (prefix.length === 0 && key === 'type') continue
    out.push([...prefix, key], ...pathsOf(v, [...prefix, key]))
  }
  return out
}

function at(
  root: unknown,
  path: Path,
): { parent: Record<string | number, unknown>; key: string | number } {
  let parent = root as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  return { parent, key: path.at(-1)! }
}

/**
 * One hostile message from `samples` (well-formed messages of the protocol under test).
 * `opaque` names fields that accept anything (a payload the protocol only carries).
 */
export function hostileMessage(
  random: () => number,
  samples: readonly unknown[],
  opaque: readonly string[] = [],
): HostileMessage {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const sample = pick(samples)
  const copy = structuredClone(sample) as Record<string, unknown>
  const type = String(copy.type)
  const isOpaque = (path: Path) => opaque.includes(String(path[0]))
  switch (Math.floor(random() * 8)) {
    case 0:
      return {
        msg: pick([null, 42, 'hello', [sample], true, undefined]),
        malformed: true,
        how: 'not an object',
      }
    case 1:
      return {
        msg: { ...copy, type: pick([`${type}x`, 'toString', '__proto__', '', 7, null]) },
        malformed: true,
        how: 'unknown type',
      }
    case 2: {
      // Through JSON.parse, so the key is an own key (a literal's `__proto__:` sets the prototype).
      const key = pick(POLLUTING_KEYS)
      const paths = pathsOf(copy).filter((p) => {
        const { parent, key: k } = at(copy, p)
        const v = parent[k]
        return typeof v === 'object' && v !== null && !Array.isArray(v) && !isOpaque(p)
      })
      const text = JSON.stringify(copy)
      if (paths.length === 0 || random() < 0.5) {
        const polluted = `{"${key}":{"polluted":true},${text.slice(1)}`
        return { msg: JSON.parse(polluted), malformed: true, how: `own ${key} key` }
      }
      const path = pick(paths)
      const { parent, key: k } = at(copy, path)
      parent[k] = { ...(parent[k] as object), marker: 'POLLUTE' }
      const polluted = JSON.stringify(copy).replace(
        '"marker":"POLLUTE"',
        `"${key}":{"polluted":true}`,
      )
      return {
        msg: JSON.parse(polluted),
        malformed: true,
        how: `own ${key} key at ${path.join('.')}`,
      }
    }
    case 3: {
      const fields = Object.keys(copy).filter((k) => k !== 'type' && !opaque.includes(k))
      if (fields.length === 0) break
      const field = pick(fields)
      delete copy[field]
      return { msg: copy, malformed: true, how: `no ${field}` }
    }
    case 4: {
      const paths = pathsOf(copy).filter((p) => !isOpaque(p))
      if (paths.length === 0) break
      const path = pick(paths)
      const { parent, key } = at(copy, path)
      parent[key] = pick(NEVER_VALID)
      // NaN and the infinities fit no field: not a count, a time, an id, a name or a record.
      return { msg: copy, malformed: true, how: `${path.join('.')} = ${String(parent[key])}` }
    }
    case 5: {
      // Random, possibly valid: such a message must simply be handled like any other.
      const paths = pathsOf(copy).filter((p) => !isOpaque(p))
      if (paths.length === 0) break
      const path = pick(paths)
      const { parent, key } = at(copy, path)
      parent[key] = pick(HOSTILE)
      return {
        msg: copy,
        malformed: false,
        how: `${path.join('.')} = ${JSON.stringify(parent[key])}`,
      }
    }
    case 6: {
      // Huge: a long array in place of a field, or a long string.
      const paths = pathsOf(copy).filter((p) => !isOpaque(p))
      if (paths.length === 0) break
      const path = pick(paths)
      const { parent, key } = at(copy, path)
      const was = parent[key]
      parent[key] =
        random() < 0.5 ? Array.from({ length: 100_000 }, (_, i) => i) : 'x'.repeat(100_000)
      return { msg: copy, malformed: false, how: `huge ${path.join('.')} (was ${typeof was})` }
    }
    default:
      break
  }
  // Well formed, as sent: a peer's ordinary message, at an odd moment.
  return { msg: copy, malformed: false, how: 'a sample as is' }
}

export interface HostilePeerLog {
  sent: Array<HostileMessage & { to: NodeId }>
  /** How many certainly malformed messages were sent to each node. */
  malformedTo: Map<NodeId, number>
}

/**
 * A protocol that, every `everyMs`, sends one hostile message made from `samples` to a random
 * other node, `count` times. The log says what it sent.
 */
export function hostilePeer(options: {
  samples: readonly unknown[]
  opaque?: readonly string[]
  count: number
  everyMs: number
  log: HostilePeerLog
  /**
   * Send only certainly malformed messages: for protocols where a member's well-formed lie (a
   * forged token, a second vote) may legitimately break what the test checks.
   */
  malformedOnly?: boolean
}): Protocol<unknown, unknown, never> {
  let left = options.count
  const next = (ctx: Ctx<unknown, never>) => {
    if (left-- <= 0 || ctx.peers.length === 0) return
    const to = ctx.peers[Math.floor(ctx.random() * ctx.peers.length)]!
    let hostile = hostileMessage(ctx.random, options.samples, options.opaque)
    // Most kinds are malformed, so a few tries find one; `null` if they all missed.
    for (let tries = 0; options.malformedOnly && !hostile.malformed; tries++)
      hostile =
        tries < 50
          ? hostileMessage(ctx.random, options.samples, options.opaque)
          : { msg: null, malformed: true, how: 'not an object' }
    options.log.sent.push({ ...hostile, to })
    if (hostile.malformed)
      options.log.malformedTo.set(to, (options.log.malformedTo.get(to) ?? 0) + 1)
    ctx.send(to, hostile.msg)
    ctx.setTimer('next', options.everyMs)
  }
  return { start: next, onMessage() {}, onTimer: (_key, ctx) => next(ctx) }
}

export const emptyHostileLog = (): HostilePeerLog => ({ sent: [], malformedTo: new Map() })

/**
 * A two-faced member: runs `honest` like any member (so the others can make progress at all) and
 * sends the hostile peer's junk beside it (`hostile`'s timer is 'next').
 */
export function twoFaced<Msg, Req, Ev>(
  honest: Protocol<Msg, Req, Ev>,
  hostile: Protocol<unknown, unknown, never>,
): Protocol<Msg, Req, Ev> {
  return {
    start(ctx) {
      honest.start?.(ctx)
      hostile.start?.(ctx as never)
    },
    onMessage: (from, msg, ctx) => honest.onMessage(from, msg, ctx),
    onTimer: (key, ctx) =>
      key === 'next' ? hostile.onTimer?.(key, ctx as never) : honest.onTimer?.(key, ctx),
    onRequest: (req, ctx) => honest.onRequest?.(req, ctx),
    onSignal: (signal, ctx) => honest.onSignal?.(signal, ctx),
  }
}
