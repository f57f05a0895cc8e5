import type { NodeId } from '../ids.js'
import type { Protocol } from '../protocol.js'

// biome-ignore lint/suspicious/noExplicitAny: any child protocol, whatever its types
export type AnyProtocol = Protocol<any, any, any>

/** The children of a composed protocol, by name. */
export type ProtocolMap = Record<string, AnyProtocol>

// biome-ignore lint/suspicious/noExplicitAny: inference sites
export type MessageOf<P> = P extends Protocol<infer Msg, any, any> ? Msg : never
// biome-ignore lint/suspicious/noExplicitAny: inference sites
export type RequestOf<P> = P extends Protocol<any, infer Req, any> ? Req : never
// biome-ignore lint/suspicious/noExplicitAny: inference sites
export type EventOf<P> = P extends Protocol<any, any, infer Ev> ? Ev : never

type Names<C> = keyof C & string

/** A child's message on the wire: `{ proto: 'lock', msg }`. */
export type ComposedMessage<C extends ProtocolMap> = {
  [K in Names<C>]: { proto: K; msg: MessageOf<C[K]> }
}[Names<C>]

/** A local request for one child: `{ proto: 'lock', req }`. */
export type ComposedRequest<C extends ProtocolMap> = {
  [K in Names<C>]: { proto: K; req: RequestOf<C[K]> }
}[Names<C>]

/** An event of one child, `{ proto: 'lock', event }`, or a notice of the composition itself. */
export type ComposedEvent<C extends ProtocolMap> =
  | { [K in Names<C>]: { proto: K; event: EventOf<C[K]> } }[Names<C>]
  | ComposeNotice

/** The name the composition itself uses for its notices; no child may take it. */
export const COMPOSE_NOTICE = 'compose'

/** An input the composition could not hand to any child: dropped and reported, never thrown. */
export type ComposeNotice = {
  proto: typeof COMPOSE_NOTICE
  event:
    | {
        type: 'dropped'
        input: 'message'
        reason: 'unknown-protocol' | 'malformed'
        from: NodeId
        /** The unknown name the envelope carried. */
        tag?: string
      }
    | { type: 'dropped'; input: 'request'; reason: 'unknown-protocol' | 'malformed'; tag?: string }
}

/** Turns events of child `F` into requests for child `T`. */
export interface Wire<C extends ProtocolMap, F extends Names<C>, T extends Names<C>> {
  from: F
  to: T
  /** Pure: the request for `to`, or undefined to let the event pass. */
  map: (event: EventOf<C[F]>) => RequestOf<C[T]> | undefined
}

/** Any wire between two children of `C` (a union, so each wire's `map` is typed by its `from` and `to`). */
export type Wiring<C extends ProtocolMap> = {
  [F in Names<C>]: { [T in Names<C>]: Wire<C, F, T> }[Names<C>]
}[Names<C>]

export interface ComposeOptions<C extends ProtocolMap> {
  /**
   * Event-to-request links between children, applied synchronously: the request is handled
   * before the `emit` that caused it returns, in the same step.
   */
  wiring?: readonly Wiring<C>[]
  /** How many wired requests may nest before `WiringDepthError` (a cycle). Default 16. */
  maxWiringDepth?: number
}

/** The protocol `compose(children)` returns. */
export type ComposedProtocol<C extends ProtocolMap> = Protocol<
  ComposedMessage<C>,
  ComposedRequest<C>,
  ComposedEvent<C>
>
