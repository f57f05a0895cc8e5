import { InvalidArgumentError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { Choice } from '../sim/control.js'
import type { SimNetwork } from '../sim/network.js'

/**
 * One choice of a schedule: an event happens, a message is dropped or duplicated, a node crashes,
 * a node pauses (`pause:2@1500`: node 2 stops for 1500 ms of virtual time, then resumes through a
 * planned action), or a node's wall clock steps (`step:1@-1000`). Fault tokens carry their own
 * parameters, so a schedule's text replays without the options that made it.
 */
export interface Token {
  id: string
  how: 'happen' | 'drop' | 'duplicate' | 'crash' | 'pause' | 'clock-step'
  key: string
  /** The node it touches (for independence); undefined: may touch anything. */
  owner: NodeId | undefined
  kind: Choice['kind'] | 'crash' | 'pause' | 'clock-step'
  /**
   * What it does, named apart from the path that led here (stateful exploration compares sleep
   * sets of one state reached by different paths, where `m:1>2#3` may name another message).
   */
  label?: string
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

export function pauseToken(node: NodeId, ms: number): Token {
  const key = `${String(node)}@${ms}`
  return { id: `pause:${key}`, how: 'pause', key, owner: node, kind: 'pause' }
}

export function clockStepToken(node: NodeId, deltaMs: number): Token {
  const key = `${String(node)}@${deltaMs}`
  return { id: `step:${key}`, how: 'clock-step', key, owner: node, kind: 'clock-step' }
}

/** `2@1500` as node `2` (looked up among the network's ids) and 1500. */
function nodeAndAmount(
  key: string,
  nodesById: Map<string, NodeId>,
): { node: NodeId; amount: number } | undefined {
  const at = key.lastIndexOf('@')
  const node = nodesById.get(key.slice(0, at))
  const amount = Number(key.slice(at + 1))
  if (at <= 0 || node === undefined || !Number.isFinite(amount)) return undefined
  return { node, amount }
}

/**
 * Whether two choices commute: both deliveries (a delivery happens at the present virtual time),
 * to different nodes, neither a fault (faults share a budget). A timer, request or planned action
 * moves virtual time to its own, which every node reads (`ctx.now()`, the due time of a timer it
 * sets), and with timers in order decides every other timer's turn: dependent on everything, in
 * either timers mode.
 */
export function independent(a: Token, b: Token): boolean {
  if (a.owner === undefined || b.owner === undefined || a.owner === b.owner) return false
  if (a.how !== 'happen' || b.how !== 'happen') return false
  return a.kind === 'deliver' && b.kind === 'deliver'
}

/** Carries out a token on the network; false if its event is no longer pending. */
export function apply(net: SimNetwork, token: Token, nodesById: Map<string, NodeId>): boolean {
  if (token.how === 'crash') {
    const node = nodesById.get(token.key)
    if (node === undefined || net.isCrashed(node)) return false
    net.crash(node)
    return true
  }
  if (token.how === 'pause') {
    const target = nodeAndAmount(token.key, nodesById)
    if (target === undefined || net.isCrashed(target.node) || net.isPaused(target.node))
      return false
    net.pause(target.node)
    net.at(net.now + target.amount, () => net.resume(target.node))
    return true
  }
  if (token.how === 'clock-step') {
    const target = nodeAndAmount(token.key, nodesById)
    if (target === undefined || net.isCrashed(target.node)) return false
    net.stepClock(target.node, target.amount)
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
    if (id.startsWith('pause:') && id.includes('@'))
      return { id, how: 'pause' as const, key: id.slice(6) }
    if (id.startsWith('step:') && id.includes('@'))
      return { id, how: 'clock-step' as const, key: id.slice(5) }
    if (!/^[mtra][:#]/.test(id))
      throw new InvalidArgumentError(`not a schedule step: ${JSON.stringify(id)}`)
    return { id, how: 'happen' as const, key: id }
  })
}
