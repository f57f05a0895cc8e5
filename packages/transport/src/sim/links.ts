import { type LatencyModel, type LatencySampler, latencySampler, probability } from './latency.js'

/** How one directed link behaves. Unset fields keep their current (or default) value. */
export interface LinkSettings {
  /** Time on the wire. Default: 1 ms fixed. */
  latency?: LatencyModel
  /** Probability that a message is lost. Default 0. */
  loss?: number
  /** Probability that a message is delivered twice. Default 0. */
  duplicate?: number
  /** Keep per-link send order (true, default) or let latencies reorder messages (false). */
  fifo?: boolean
}

/** Validated settings with the latency model compiled to a sampler. */
export interface ResolvedLink {
  readonly settings: Required<LinkSettings>
  readonly sample: LatencySampler
  readonly loss: number
  readonly duplicate: number
  readonly fifo: boolean
}

export const DEFAULT_LINK: Required<LinkSettings> = {
  latency: 1,
  loss: 0,
  duplicate: 0,
  fifo: true,
}

/** Merges `changes` into `base`, validating each field; throws InvalidArgumentError. */
export function resolveLink(
  base: Required<LinkSettings>,
  changes: LinkSettings,
  where: string,
): ResolvedLink {
  const settings: Required<LinkSettings> = {
    latency: changes.latency ?? base.latency,
    loss: probability(changes.loss ?? base.loss, `${where} loss`),
    duplicate: probability(changes.duplicate ?? base.duplicate, `${where} duplicate`),
    fifo: changes.fifo ?? base.fifo,
  }
  return {
    settings,
    sample: latencySampler(settings.latency, where),
    loss: settings.loss,
    duplicate: settings.duplicate,
    fifo: settings.fifo,
  }
}

/** Per directed link: its behaviour, and the arrival time of its last message (for FIFO). */
export interface LinkState {
  config: ResolvedLink
  overridden: boolean
  lastArrival: number
  /** Messages sent on this link so far: names each delivery stably for the explorer. */
  sent: number
}
