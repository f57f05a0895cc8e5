/**
 * A test-only algorithm honouring every lock feature (shared, permits, ifAvailable, steal): one
 * node keeps each resource's holders and FIFO queue in memory and grants from it. No failover,
 * no leases: it exists so the lock API's feature paths can be tested before a real algorithm
 * honours them. A steal waits for the evicted holders' acknowledgement before granting, so the
 * all-nodes checker sees no overlap.
 */
import type { Ctx, NodeId, Protocol } from '@sd/transport'
import {
  type AcquiredEvent,
  type LockMode,
  type MutexRequest,
  type PermitCount,
  type ReleasedEvent,
  resourceOf,
  type UnavailableEvent,
  withLockFeatures,
} from '../../src/contract.js'

interface Ask {
  node: NodeId
  mode: LockMode
  permits?: PermitCount
  ifAvailable: boolean
  steal: boolean
}

export type FeatureMessage =
  | { type: 'ask'; resource: string; ask: Omit<Ask, 'node'> }
  | { type: 'leave'; resource: string; token: number }
  | { type: 'grant'; resource: string; token: number; mode: LockMode; permits?: PermitCount }
  | { type: 'unavailable'; resource: string }
  | { type: 'stolen'; resource: string; token: number }

export type FeatureEvent =
  | AcquiredEvent
  | ReleasedEvent
  | UnavailableEvent
  | { type: 'lease-lost'; resource: string; token: number; reason: 'stolen' }

interface Holder {
  node: NodeId
  token: number
  ask: Ask
}

interface Resource {
  holders: Holder[]
  queue: Ask[]
  /** Holders told they were stolen from, not yet acknowledged: the stealer waits for them. */
  evicting: Holder[]
  stealer: Ask | undefined
  next: number
}

/** Whether `ask` may hold beside `holders`. */
function fits(ask: Ask, holders: readonly Holder[]): boolean {
  if (holders.length === 0) return true
  if (ask.permits !== undefined) {
    const of = ask.permits.of
    if (holders.some((h) => h.ask.permits?.of !== of)) return false
    const out = holders.reduce((sum, h) => sum + h.ask.permits!.take, 0)
    return out + ask.permits.take <= of
  }
  return ask.mode === 'shared' && holders.every((h) => h.ask.mode === 'shared' && !h.ask.permits)
}

/** `coordinator` keeps the queues; every node (it too) asks it. */
export function featureCoordinator(coordinator: NodeId) {
  const factory = (self: NodeId): Protocol<FeatureMessage, MutexRequest, FeatureEvent> => {
    const resources = new Map<string, Resource>()
    // This node's side: what it asked for, what it holds.
    const asking = new Set<string>()
    const held = new Map<string, number>()
    const asked = new Map<string, Omit<Ask, 'node'>>()
    const stolenEarly = new Set<string>()

    const to = (ctx: Ctx<FeatureMessage, FeatureEvent>, node: NodeId, msg: FeatureMessage) => {
      if (node === self) onMessage(self, msg, ctx)
      else ctx.send(node, msg)
    }

    const resourceNamed = (name: string): Resource => {
      let r = resources.get(name)
      if (r === undefined) {
        r = { holders: [], queue: [], evicting: [], stealer: undefined, next: 1 }
        resources.set(name, r)
      }
      return r
    }

    const grant = (ctx: Ctx<FeatureMessage, FeatureEvent>, name: string, r: Resource, a: Ask) => {
      const token = r.next++
      r.holders.push({ node: a.node, token, ask: a })
      to(ctx, a.node, {
        type: 'grant',
        resource: name,
        token,
        mode: a.mode,
        ...(a.permits === undefined ? {} : { permits: a.permits }),
      })
    }

    /** Grants from the head of the queue, in order, while the head fits. */
    const serve = (ctx: Ctx<FeatureMessage, FeatureEvent>, name: string, r: Resource) => {
      if (r.stealer !== undefined) {
        if (r.evicting.length > 0) return
        const stealer = r.stealer
        r.stealer = undefined
        grant(ctx, name, r, stealer)
      }
      while (r.queue.length > 0 && fits(r.queue[0]!, r.holders))
        grant(ctx, name, r, r.queue.shift()!)
    }

    const onMessage = (
      from: NodeId,
      msg: FeatureMessage,
      ctx: Ctx<FeatureMessage, FeatureEvent>,
    ) => {
      if (msg.type === 'ask' && self === coordinator) {
        const r = resourceNamed(msg.resource)
        const a: Ask = { ...msg.ask, node: from }
        if (a.steal) {
          // A stealer not yet granted waits again, first in line: the later steal wins.
          if (r.stealer !== undefined) r.queue.unshift(r.stealer)
          // The stealer first: the coordinator's own holder acknowledges within the loop below.
          r.stealer = a
          const evicted = r.holders.splice(0)
          r.evicting.push(...evicted)
          for (const h of evicted) {
            to(ctx, h.node, { type: 'stolen', resource: msg.resource, token: h.token })
          }
        } else if (a.ifAvailable) {
          if (r.queue.length > 0 || r.stealer !== undefined || !fits(a, r.holders)) {
            to(ctx, from, { type: 'unavailable', resource: msg.resource })
            return
          }
          r.queue.push(a)
        } else r.queue.push(a)
        serve(ctx, msg.resource, r)
      } else if (msg.type === 'leave' && self === coordinator) {
        const r = resourceNamed(msg.resource)
        const gone = (h: Holder) => h.node === from && h.token === msg.token
        r.holders = r.holders.filter((h) => !gone(h))
        r.evicting = r.evicting.filter((h) => !gone(h))
        serve(ctx, msg.resource, r)
      } else if (msg.type === 'grant' && stolenEarly.delete(`${msg.resource}#${msg.token}`)) {
        // Stolen before its grant arrived (messages may overtake): given back, and asked again.
        to(ctx, coordinator, { type: 'leave', resource: msg.resource, token: msg.token })
        to(ctx, coordinator, { type: 'ask', resource: msg.resource, ask: asked.get(msg.resource)! })
      } else if (msg.type === 'grant' && asking.delete(msg.resource)) {
        held.set(msg.resource, msg.token)
        ctx.emit({
          type: 'acquired',
          resource: msg.resource,
          token: msg.token,
          ...(msg.mode === 'shared' ? { mode: 'shared' as const } : {}),
          ...(msg.permits === undefined ? {} : { permits: msg.permits }),
        })
      } else if (msg.type === 'unavailable' && asking.delete(msg.resource)) {
        ctx.emit({ type: 'unavailable', resource: msg.resource })
      } else if (msg.type === 'stolen') {
        // Acknowledged by leaving; a holder that already left has acknowledged it.
        if (held.get(msg.resource) !== msg.token) {
          if (asking.has(msg.resource)) stolenEarly.add(`${msg.resource}#${msg.token}`)
          return
        }
        held.delete(msg.resource)
        ctx.emit({ type: 'lease-lost', resource: msg.resource, token: msg.token, reason: 'stolen' })
        ctx.emit({ type: 'released', resource: msg.resource, token: msg.token })
        to(ctx, coordinator, { type: 'leave', resource: msg.resource, token: msg.token })
      }
    }

    return {
      onMessage,
      onRequest(req, ctx) {
        const name = resourceOf(req)
        if (req.type === 'acquire') {
          if (asking.has(name) || held.has(name)) return // a node holds a resource once
          asking.add(name)
          const ask = {
            mode: req.mode ?? 'exclusive',
            ...(req.permits === undefined ? {} : { permits: req.permits }),
            ifAvailable: req.ifAvailable === true,
            steal: req.steal === true,
          }
          asked.set(name, ask)
          to(ctx, coordinator, { type: 'ask', resource: name, ask })
        } else {
          const token = held.get(name)
          if (token === undefined) return
          held.delete(name)
          ctx.emit({ type: 'released', resource: name, token })
          to(ctx, coordinator, { type: 'leave', resource: name, token })
        }
      },
    }
  }
  return withLockFeatures(factory, ['shared', 'permits', 'ifAvailable', 'steal'])
}
