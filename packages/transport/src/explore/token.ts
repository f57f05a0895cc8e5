import { InvalidArgumentError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { Choice, SimNetwork } from '../sim/network.js'

/** One choice of a schedule: an event happens, a message is dropped or duplicated, a node crashes. */
export interface Token {
  id: string
  how: 'happen' | 'drop' | 'duplicate' | 'crash'
  key: string
  /** The node it touches (for independence); undefined: may touch anything. */
  owner: NodeId | undefined
  kind: Choice['kind'] | 'crash'
}

export function tokenOf(choice: Choice, how: Token['how'] = 'happen'): Token {
  const id = how === 'happen' ? choice.key : `${how === 'drop' ? 'drop' : 'dup'}:${choice.key}`
  return { id, how, key: choice.key, owner: choice.owner, kind: choice.kind }
}

export function crashToken(node: NodeId): Token {
  return {
    id: `crash:${String(node)}`,
    how: 'crash',
    key: String(node),
    owner: node,
    kind: 'crash',
  }
}

/**
 * Whether two choices commute: both touch one known node each, different nodes, and neither is
 * a fault (faults share a budget) nor, with timers in order, a timer or request (those move
 * virtual time, on which every other timer's turn depends).
 */
export function independent(a: Token, b: Token, timers: 'in-order' | 'any-order'): boolean {
  if (a.owner === undefined || b.owner === undefined || a.owner === b.owner) return false
  if (a.how !== 'happen' || b.how !== 'happen') return false
  if (timers === 'in-order' && (a.kind !== 'deliver' || b.kind !== 'deliver')) return false
  return true
}

/** Carries out a token on the network; false if its event is no longer pending. */
export function apply(net: SimNetwork, token: Token, nodesById: Map<string, NodeId>): boolean {
  if (token.how === 'crash') {
    const node = nodesById.get(token.key)
    if (node === undefined || net.isCrashed(node)) return false
    net.crash(node)
    return true
  }
  return net.take(token.key, token.how)
}

/** A schedule as text: tokens separated by spaces (`m:1>2#1 drop:m:2>1#1 crash:3 t:2#1`). */
export function formatSchedule(tokens: readonly Token[]): string {
  return tokens.map((t) => t.id).join(' ')
}

export function parseSchedule(text: string): Array<{ id: string; how: Token['how']; key: string }> {
  const trimmed = text.trim()
  if (trimmed === '') return []
  return trimmed.split(/\s+/).map((id) => {
    if (id.startsWith('drop:')) return { id, how: 'drop' as const, key: id.slice(5) }
    if (id.startsWith('dup:')) return { id, how: 'duplicate' as const, key: id.slice(4) }
    if (id.startsWith('crash:')) return { id, how: 'crash' as const, key: id.slice(6) }
    if (!/^[mtra][:#]/.test(id))
      throw new InvalidArgumentError(`not a schedule step: ${JSON.stringify(id)}`)
    return { id, how: 'happen' as const, key: id }
  })
}
