/** What `acquire` needs of an AbortSignal (a DOM or Node AbortSignal is one). */
export interface AbortSignalLike {
  readonly aborted: boolean
  readonly reason?: unknown
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/**
 * The platform's `AbortSignal` where the consumer's types declare one (DOM or Node), so a handle's
 * signal can go to `fetch`; else `AbortSignalLike`, so the declarations need neither.
 */
export type PlatformAbortSignal = typeof globalThis extends {
  AbortSignal: { prototype: infer S }
}
  ? S
  : AbortSignalLike
