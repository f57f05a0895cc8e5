/**
 * How a host (the simulator's trace) tells which child of a composed protocol a message, timer,
 * event or request belongs to. Composed protocols carry a locator under this key; `Symbol.for`
 * so every copy of the package finds it.
 */
export const PART_LOCATOR = Symbol.for('@sd/transport.part-locator')

/** Each method returns the child's name (`'lock'`, or `'app/lock'` when composed twice), or undefined. */
export interface PartLocator {
  message(msg: unknown): string | undefined
  timer(key: string): string | undefined
  event(event: unknown): string | undefined
  request(req: unknown): string | undefined
}

/** The locator of a protocol instance, if it is a composition. */
export function partLocatorOf(protocol: unknown): PartLocator | undefined {
  if (protocol === null || typeof protocol !== 'object') return undefined
  const locator = (protocol as Record<symbol, unknown>)[PART_LOCATOR]
  return typeof locator === 'object' && locator !== null ? (locator as PartLocator) : undefined
}
