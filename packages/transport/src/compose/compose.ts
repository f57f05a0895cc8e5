import { InvalidArgumentError, WiringDepthError } from '../errors.js'
import type { Ctx } from '../protocol.js'
import type { StableStorage } from '../storage/types.js'
import { PART_LOCATOR, type PartLocator, partLocatorOf } from './parts.js'
import {
  type AnyProtocol,
  COMPOSE_NOTICE,
  type ComposedProtocol,
  type ComposeNotice,
  type ComposeOptions,
  type ProtocolMap,
  type Wiring,
} from './types.js'

type AnyCtx = Ctx<unknown, unknown>

const DEFAULT_MAX_WIRING_DEPTH = 16

/**
 * Runs several protocols as one, on one transport. Each child sees its own `ctx`: its messages
 * travel as `{ proto: name, msg }`, its timer keys become `name/key`, its events `{ proto: name,
 * event }`, its storage keys `name/key`; `self`, `peers`, `now()` and `random()` are shared.
 * A local request addresses one child: `{ proto: name, req }`. Wiring turns one child's events
 * into another's requests, synchronously. Pure, like its children: it runs anywhere they do.
 */
export function compose<C extends ProtocolMap>(
  children: C,
  options: NoInfer<ComposeOptions<C>> = {},
): ComposedProtocol<C> {
  const names = Object.keys(children)
  if (names.length === 0) throw new InvalidArgumentError('compose() needs at least one protocol')
  for (const name of names) checkName(name)
  const maxDepth = options.maxWiringDepth ?? DEFAULT_MAX_WIRING_DEPTH
  if (!Number.isInteger(maxDepth) || maxDepth < 1)
    throw new InvalidArgumentError(`maxWiringDepth must be an integer >= 1, got ${maxDepth}`)
  const child = (name: string): AnyProtocol | undefined =>
    Object.hasOwn(children, name) ? children[name] : undefined
  const wiresFrom = groupWiring(options.wiring ?? [], child)

  /** Children being handled, outermost first; wired requests push onto it. */
  const chain: string[] = []
  let viewsFor: AnyCtx | undefined
  let views = new Map<string, AnyCtx>()

  const view = (outer: AnyCtx, name: string): AnyCtx => {
    if (viewsFor !== outer) {
      viewsFor = outer
      views = new Map()
    }
    let ctx = views.get(name)
    if (ctx === undefined) {
      ctx = childView(outer, name, (event) => {
        outer.emit({ proto: name, event })
        for (const wire of wiresFrom.get(name) ?? []) {
          const req = wire.map(event)
          if (req !== undefined) handle(outer, wire.to, (p, c) => p.onRequest!(req, c))
        }
      })
      views.set(name, ctx)
    }
    return ctx
  }

  const handle = (outer: AnyCtx, name: string, body: (p: AnyProtocol, ctx: AnyCtx) => void) => {
    chain.push(name)
    try {
      if (chain.length > maxDepth + 1) throw new WiringDepthError(chain, maxDepth)
      body(child(name)!, view(outer, name))
    } finally {
      chain.pop()
    }
  }

  const notice = (outer: AnyCtx, event: ComposeNotice['event']) =>
    outer.emit({ proto: COMPOSE_NOTICE, event } satisfies ComposeNotice)

  const composed: ComposedProtocol<C> & { [PART_LOCATOR]: PartLocator } = {
    start(ctx) {
      for (const name of names) {
        if (child(name)!.start) handle(ctx as AnyCtx, name, (p, c) => p.start!(c))
      }
    },
    onMessage(from, msg, ctx) {
      const envelope = open(msg, 'msg')
      if (envelope === undefined) {
        notice(ctx as AnyCtx, { type: 'dropped', input: 'message', reason: 'malformed', from })
      } else if (child(envelope.proto) === undefined) {
        notice(ctx as AnyCtx, {
          type: 'dropped',
          input: 'message',
          reason: 'unknown-protocol',
          from,
          tag: envelope.proto,
        })
      } else {
        handle(ctx as AnyCtx, envelope.proto, (p, c) => p.onMessage(from, envelope.body, c))
      }
    },
    onTimer(key, ctx) {
      const slash = key.indexOf('/')
      const name = key.slice(0, slash)
      // Only children set timers, always through their view, so every key has a known prefix.
      if (slash > 0 && child(name)?.onTimer) {
        handle(ctx as AnyCtx, name, (p, c) => p.onTimer!(key.slice(slash + 1), c))
      }
    },
    onRequest(req, ctx) {
      const envelope = open(req, 'req')
      if (envelope === undefined) {
        notice(ctx as AnyCtx, { type: 'dropped', input: 'request', reason: 'malformed' })
      } else if (child(envelope.proto) === undefined) {
        notice(ctx as AnyCtx, {
          type: 'dropped',
          input: 'request',
          reason: 'unknown-protocol',
          tag: envelope.proto,
        })
      } else if (child(envelope.proto)!.onRequest) {
        handle(ctx as AnyCtx, envelope.proto, (p, c) => p.onRequest!(envelope.body, c))
      }
    },
    onSignal(signal, ctx) {
      for (const name of names) {
        if (child(name)!.onSignal) handle(ctx as AnyCtx, name, (p, c) => p.onSignal!(signal, c))
      }
    },
    [PART_LOCATOR]: locator(names, child),
  }
  // The composition's state is its children's: it keeps none of its own between handlers (the
  // views are a cache of the outer ctx; the chain is empty between handlers).
  if (names.every((name) => typeof child(name)!.snapshot === 'function')) {
    composed.snapshot = () =>
      Object.fromEntries(names.map((name) => [name, child(name)!.snapshot!()]))
    // Restorable only when every child is: a child left in its initial state would be wrong.
    if (names.every((name) => typeof child(name)!.restore === 'function')) {
      composed.restore = (snapshot) => {
        const byName = childSnapshots(snapshot, names)
        for (const name of names) child(name)!.restore!(byName[name])
      }
    }
  }
  return composed
}

/** The snapshot `composed.snapshot()` gave, checked to hold one entry per child. */
function childSnapshots(snapshot: unknown, names: readonly string[]): Record<string, unknown> {
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot))
    throw new InvalidArgumentError('compose(): restore() takes the object snapshot() gave')
  const missing = names.filter((name) => !Object.hasOwn(snapshot, name))
  if (missing.length > 0)
    throw new InvalidArgumentError(
      `compose(): restore() got no snapshot for ${missing.map((n) => JSON.stringify(n)).join(', ')}`,
    )
  return snapshot as Record<string, unknown>
}

function checkName(name: string): void {
  if (name === '' || name.includes('/'))
    throw new InvalidArgumentError(
      `compose(): protocol name ${JSON.stringify(name)} must be non-empty and contain no "/" (it prefixes timer and storage keys)`,
    )
  if (name === COMPOSE_NOTICE)
    throw new InvalidArgumentError(
      `compose(): the name ${JSON.stringify(COMPOSE_NOTICE)} is reserved for the composition's own notices`,
    )
}

type LooseWire = { from: string; to: string; map: (event: unknown) => unknown }

function groupWiring<C extends ProtocolMap>(
  wiring: readonly Wiring<C>[],
  child: (name: string) => AnyProtocol | undefined,
): Map<string, LooseWire[]> {
  const byFrom = new Map<string, LooseWire[]>()
  for (const wire of wiring as readonly LooseWire[]) {
    const where = `compose(): wire ${JSON.stringify(wire.from)} -> ${JSON.stringify(wire.to)}`
    if (child(wire.from) === undefined)
      throw new InvalidArgumentError(`${where}: no protocol named ${JSON.stringify(wire.from)}`)
    if (child(wire.to) === undefined)
      throw new InvalidArgumentError(`${where}: no protocol named ${JSON.stringify(wire.to)}`)
    if (typeof child(wire.to)!.onRequest !== 'function')
      throw new InvalidArgumentError(`${where}: ${JSON.stringify(wire.to)} takes no requests`)
    if (typeof wire.map !== 'function')
      throw new InvalidArgumentError(`${where}: map must be a function`)
    byFrom.set(wire.from, [...(byFrom.get(wire.from) ?? []), wire])
  }
  return byFrom
}

/** `{ proto, msg }` (or `{ proto, req }`): the child's name and what it carries. */
function open(value: unknown, field: 'msg' | 'req'): { proto: string; body: unknown } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const proto = (value as { proto?: unknown }).proto
  if (typeof proto !== 'string' || !Object.hasOwn(value, field)) return undefined
  return { proto, body: (value as Record<string, unknown>)[field] }
}

/** A child's window: shared reads, namespaced effects. */
function childView(outer: AnyCtx, name: string, emit: (event: unknown) => void): AnyCtx {
  const prefix = `${name}/`
  return {
    self: outer.self,
    peers: outer.peers,
    now: () => outer.now(),
    monotonic: () => outer.monotonic(),
    random: () => outer.random(),
    send: (to, msg) => outer.send(to, { proto: name, msg }),
    broadcast: (msg) => outer.broadcast({ proto: name, msg }),
    setTimer: (key, ms) => outer.setTimer(prefix + key, ms),
    cancelTimer: (key) => outer.cancelTimer(prefix + key),
    emit,
    storage: prefixedStorage(outer.storage, prefix),
  }
}

function prefixedStorage(storage: StableStorage, prefix: string): StableStorage {
  return {
    get: (key) => storage.get(prefix + key),
    set: (key, value) => storage.set(prefix + key, value),
    delete: (key) => storage.delete(prefix + key),
    keys: () =>
      storage
        .keys()
        .filter((key) => key.startsWith(prefix))
        .map((key) => key.slice(prefix.length)),
  }
}

/** Names the child behind a message, timer, event or request, through nested compositions too. */
function locator(
  names: readonly string[],
  child: (name: string) => AnyProtocol | undefined,
): PartLocator {
  const inner = (name: string, find: (l: PartLocator) => string | undefined) => {
    const nested = partLocatorOf(child(name))
    const sub = nested === undefined ? undefined : find(nested)
    return sub === undefined ? name : `${name}/${sub}`
  }
  const known = (name: unknown): name is string => typeof name === 'string' && names.includes(name)
  return {
    message(msg) {
      const envelope = open(msg, 'msg')
      if (!known(envelope?.proto)) return undefined
      return inner(envelope.proto, (l) => l.message(envelope.body))
    },
    timer(key) {
      const slash = key.indexOf('/')
      const name = key.slice(0, slash)
      if (slash <= 0 || !known(name)) return undefined
      return inner(name, (l) => l.timer(key.slice(slash + 1)))
    },
    event(event) {
      if (event === null || typeof event !== 'object') return undefined
      const { proto, event: body } = event as { proto?: unknown; event?: unknown }
      if (proto === COMPOSE_NOTICE) return COMPOSE_NOTICE
      if (!known(proto)) return undefined
      return inner(proto, (l) => l.event(body))
    },
    request(req) {
      const envelope = open(req, 'req')
      if (!known(envelope?.proto)) return undefined
      return inner(envelope.proto, (l) => l.request(envelope.body))
    },
  }
}
