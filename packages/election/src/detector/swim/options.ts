import { InvalidArgumentError } from '@sd/transport'

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
  }
}
