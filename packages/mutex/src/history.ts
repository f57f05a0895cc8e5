import type { NodeId, TraceEvent } from '@sd/transport'
import type { LockGrant, LockInput, LockOutput, Operation } from '@sd/transport/history'
import { DEFAULT_RESOURCE } from './contract.js'
import { fieldOf } from './fields.js'

/**
 * A run's lock operations from its trace alone (`net.trace`, a trace document's `events`), for the
 * linearizability checker of `@sd/transport/history` with its lock model:
 * `checkHistory(lockModel({ strayRelease: 'ignore' }), lockHistoryFromTrace(net.trace))`.
 *
 * An acquire runs from the node's `acquire` request to its `acquired` event (that event alone when
 * no request is in the trace), its output the token and the lease's end: `leaseMs` after
 * `acquired`, moved by each `lease-renewed` to `validForMs` after it, cut short by a `lease-lost`
 * or the holder's crash (no lease: until its release or crash). A release runs from the node's
 * `release` request to its `released` event. An acquire never answered is pending. Requests and
 * events of a composed protocol (`{ proto, req }`, `{ proto, event }`) are taken from `proto`'s
 * child only when `proto` is given; each resource is its own lock (the operations' `key`).
 */
export function lockHistoryFromTrace(
  trace: readonly TraceEvent[],
  options: { proto?: string } = {},
): Operation<LockInput, LockOutput>[] {
  const operations: Operation<LockInput, LockOutput>[] = []
  /** Acquires asked and not yet answered, per node and resource, oldest first. */
  const asked = new Map<string, Operation<LockInput, LockOutput>[]>()
  /** The last release asked, per node and resource. */
  const releaseAsked = new Map<string, number>()
  /** Holdings not yet over, by node, resource and token: their grant's output. */
  const held = new Map<string, { node: NodeId; grant: LockGrant }>()
  const at = (node: NodeId, resource: string) => JSON.stringify([node, resource])
  const holding = (node: NodeId, resource: string, token: unknown) =>
    JSON.stringify([node, resource, token])
  const end = (key: string, t: number) => {
    const h = held.get(key)
    if (h !== undefined) h.grant.leaseEnd = Math.min(h.grant.leaseEnd, t)
    held.delete(key)
  }

  for (const e of trace) {
    if (e.type === 'crash') {
      for (const [key, h] of held) if (h.node === e.node) end(key, e.t)
      for (const key of asked.keys()) if (JSON.parse(key)[0] === e.node) asked.delete(key)
      continue
    }
    if (e.type === 'request') {
      const req = unwrap(e.req, 'req', options.proto)
      const type = fieldOf(req, 'type')
      const resource = resourceOf(req)
      if (type === 'acquire') {
        const client = e.node
        const op: Operation<LockInput, LockOutput> = {
          id: operations.length,
          client,
          input: { f: 'acquire', client, grantedBy: e.t, key: resource },
          invokedAt: e.t,
        }
        operations.push(op)
        const list = asked.get(at(e.node, resource)) ?? []
        list.push(op)
        asked.set(at(e.node, resource), list)
      } else if (type === 'release') releaseAsked.set(at(e.node, resource), e.t)
      continue
    }
    if (e.type !== 'emit') continue
    const ev = unwrap(e.event, 'event', options.proto)
    const type = fieldOf(ev, 'type')
    const token = fieldOf(ev, 'token')
    if (typeof token !== 'number') continue
    const resource = resourceOf(ev)
    const key = holding(e.node, resource, token)
    if (type === 'acquired') {
      const leaseMs = fieldOf(ev, 'leaseMs')
      const grant = {
        token,
        leaseEnd: typeof leaseMs === 'number' ? e.t + leaseMs : Number.POSITIVE_INFINITY,
      }
      const client = e.node
      const input: LockInput = { f: 'acquire', client, grantedBy: e.t, key: resource }
      const op = asked.get(at(e.node, resource))?.shift()
      if (op === undefined)
        operations.push({
          id: operations.length,
          client,
          input,
          invokedAt: e.t,
          completedAt: e.t,
          output: grant,
        })
      else Object.assign(op, { input, completedAt: e.t, output: grant })
      held.set(key, { node: e.node, grant })
    } else if (type === 'lease-renewed') {
      const validForMs = fieldOf(ev, 'validForMs')
      const h = held.get(key)
      if (h !== undefined && typeof validForMs === 'number')
        h.grant.leaseEnd = Math.max(h.grant.leaseEnd, e.t + validForMs)
    } else if (type === 'lease-lost') end(key, e.t)
    else if (type === 'released') {
      held.delete(key)
      const asking = releaseAsked.get(at(e.node, resource))
      operations.push({
        id: operations.length,
        client: e.node,
        input: { f: 'release', client: e.node, token, key: resource },
        invokedAt: asking !== undefined && asking <= e.t ? asking : e.t,
        completedAt: e.t,
      })
      releaseAsked.delete(at(e.node, resource))
    }
  }
  // In invocation order, as the checker's other feeds give them.
  return operations.sort((a, b) => a.invokedAt - b.invokedAt)
}

/** A composed child's request or event (`{ proto, req }`) when `proto` names it; else as is. */
function unwrap(value: unknown, field: 'req' | 'event', proto: string | undefined): unknown {
  if (proto === undefined) return value
  return fieldOf(value, 'proto') === proto ? fieldOf(value, field) : undefined
}

function resourceOf(value: unknown): string {
  const resource = fieldOf(value, 'resource')
  return typeof resource === 'string' ? resource : DEFAULT_RESOURCE
}
