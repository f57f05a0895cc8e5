import { TransportClosedError } from '../errors.js'
import type { NodeId } from '../ids.js'
import type { MessageHandler, Transport, Unsubscribe } from '../transport.js'

/** The transport face of a simulated node: `send` hands the message to the network. */
export class SimTransport<Msg> implements Transport<Msg> {
  private handlers: MessageHandler<Msg>[] = []
  private isClosed = false

  constructor(
    readonly self: NodeId,
    private readonly sendToNetwork: (to: NodeId, msg: Msg) => void,
  ) {}

  get closed(): boolean {
    return this.isClosed
  }

  send(to: NodeId, msg: Msg): void {
    if (this.isClosed) throw new TransportClosedError(this.self, `send to ${JSON.stringify(to)}`)
    this.sendToNetwork(to, msg)
  }

  onMessage(handler: MessageHandler<Msg>): Unsubscribe {
    if (this.isClosed) throw new TransportClosedError(this.self, 'add a message handler')
    this.handlers = [...this.handlers, handler]
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler)
    }
  }

  async close(): Promise<void> {
    this.isClosed = true
    this.handlers = []
  }

  /** Called by the network when a message arrives. */
  deliver(from: NodeId, msg: unknown): void {
    const handlers = this.handlers
    for (let i = 0; i < handlers.length; i++) handlers[i]!(from, msg as Msg)
  }
}
