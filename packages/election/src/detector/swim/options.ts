import { InvalidArgumentError, isNodeId, type NodeId } from '@sd/transport'
import { MAX_MEMBERS } from './messages.js'

export interface SwimOptions {
  /** One probe per period, ms (scaled by the local health multiplier). Default 200. */
  periodMs?: number
  /** Wait for the direct ack before asking others, ms (scaled too). Default 60; under periodMs. */
  probeTimeoutMs?: number
  /** Members asked to probe for us when the direct ping goes unanswered (k). Default 3. */
  indirectChecks?: number
  /**
   * Suspicion timeout, in periods, times max(1, log10(n)): the least a suspicion lasts before the
   * member is declared dead (memberlist's SuspicionMult). Default 4.
   */
  suspicionMult?: number
  /** The longest a suspicion lasts, as a multiple of the least (Lifeguard's beta). Default 6. */
  suspicionMaxMult?: number
  /** An update is piggybacked retransmitMult x ceil(log10(n + 1)) times (lambda log n). Default 4. */
  retransmitMult?: number
  /** Updates piggybacked on one message at most. Default 6. */
  maxPiggyback?: number
  /**
   * Lifeguard (Dadgar et al., 2017). `localHealth`: a node whose own probes fail, or who hears
   * itself suspected, slows its period and timeouts (multiplier 1..maxLocalHealth+1).
   * `dynamicSuspicion`: a suspicion starts at the longest timeout and shrinks as other members
   * confirm it; off, every suspicion lasts the least. `buddy`: a ping to a member we suspect
   * carries the suspicion first, so it refutes sooner. `nacks`: helpers of an indirect probe
   * that got no answer say so, which tells our own links from the target's. `false` turns all
   * off (plain SWIM). Default all on.
   */
  lifeguard?:
    | false
    | { localHealth?: boolean; dynamicSuspicion?: boolean; buddy?: boolean; nacks?: boolean }
  /** Highest local health score (the multiplier is score + 1). Default 8. */
  maxLocalHealth?: number
  /**
   * Members to join through (their ids; the transport knows their addresses): the node starts
   * alone, asks one seed after another, once a period, until one answers with its member list.
   * Empty or absent: the node starts with `ctx.peers` as the group (seeds equal to self are
   * dropped: a first member lists itself). Default none.
   */
  seeds?: readonly NodeId[]
  /** Entries the member list holds at most, self and tombstones included; joins beyond are refused. Default 1024. */
  maxMembers?: number
  /**
   * A dead or left member is remembered this many periods before it is forgotten, so late news
   * of it (in its old incarnation) cannot bring it back. 0 forgets at the next period (not
   * advised: a delayed message then resurrects it). Default 100.
   */
  tombstonePeriods?: number
  /** A leaving member announces its leave this many periods before it stops. Default 5. */
  leavePeriods?: number
}

export interface SwimSettings {
  periodMs: number
  probeTimeoutMs: number
  indirectChecks: number
  suspicionMult: number
  suspicionMaxMult: number
  retransmitMult: number
  maxPiggyback: number
  localHealth: boolean
  dynamicSuspicion: boolean
  buddy: boolean
  nacks: boolean
  maxLocalHealth: number
  seeds: NodeId[]
  maxMembers: number
  tombstonePeriods: number
  leavePeriods: number
}

export const DEFAULT_PERIOD_MS = 200
export const DEFAULT_PROBE_TIMEOUT_MS = 60

const check = (name: string, v: unknown, ok: (v: number) => boolean, what: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) {
    throw new InvalidArgumentError(`swim: ${name} must be ${what}, got ${String(v)}`)
  }
  return v
}
const positive = (name: string, v: unknown) => check(name, v, (x) => x > 0, 'a number above 0')
const count = (name: string, v: unknown, min: number) =>
  check(name, v, (x) => Number.isInteger(x) && x >= min, `an integer >= ${min}`)

export function resolveOptions(options: SwimOptions = {}): SwimSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('swim: options must be an object')
  }
  const periodMs = positive('periodMs', options.periodMs ?? DEFAULT_PERIOD_MS)
  const probeTimeoutMs = positive(
    'probeTimeoutMs',
    options.probeTimeoutMs ?? Math.min(DEFAULT_PROBE_TIMEOUT_MS, periodMs * 0.3),
  )
  if (probeTimeoutMs >= periodMs) {
    throw new InvalidArgumentError(
      `swim: probeTimeoutMs (${probeTimeoutMs}) must be under periodMs (${periodMs}): the indirect probe needs the rest of the period`,
    )
  }
  const lifeguard = options.lifeguard ?? {}
  if (lifeguard !== false && (typeof lifeguard !== 'object' || lifeguard === null)) {
    throw new InvalidArgumentError('swim: lifeguard must be false or an object')
  }
  const on = (key: 'localHealth' | 'dynamicSuspicion' | 'buddy' | 'nacks') =>
    lifeguard !== false && lifeguard[key] !== false
  const suspicionMult = positive('suspicionMult', options.suspicionMult ?? 4)
  const suspicionMaxMult = check(
    'suspicionMaxMult',
    options.suspicionMaxMult ?? 6,
    (x) => x >= 1,
    'a number >= 1',
  )
  return {
    periodMs,
    probeTimeoutMs,
    indirectChecks: count('indirectChecks', options.indirectChecks ?? 3, 0),
    suspicionMult,
    suspicionMaxMult,
    retransmitMult: count('retransmitMult', options.retransmitMult ?? 4, 1),
    maxPiggyback: count('maxPiggyback', options.maxPiggyback ?? 6, 1),
    localHealth: on('localHealth'),
    dynamicSuspicion: on('dynamicSuspicion'),
    buddy: on('buddy'),
    nacks: on('nacks'),
    maxLocalHealth: count('maxLocalHealth', options.maxLocalHealth ?? 8, 0),
    seeds: seedList(options.seeds),
    maxMembers: check(
      'maxMembers',
      options.maxMembers ?? 1024,
      (x) => Number.isInteger(x) && x >= 1 && x <= MAX_MEMBERS,
      `an integer in 1..${MAX_MEMBERS}`,
    ),
    tombstonePeriods: count('tombstonePeriods', options.tombstonePeriods ?? 100, 0),
    leavePeriods: count('leavePeriods', options.leavePeriods ?? 5, 1),
  }
}

function seedList(seeds: unknown): NodeId[] {
  if (seeds === undefined) return []
  if (!Array.isArray(seeds) || !seeds.every((id) => isNodeId(id))) {
    throw new InvalidArgumentError('swim: seeds must be an array of node ids')
  }
  return [...new Set(seeds as NodeId[])]
}
