export { compose } from './compose.js'
export type {
  AnyProtocol,
  ComposedEvent,
  ComposedMessage,
  ComposedProtocol,
  ComposedRequest,
  ComposeNotice,
  ComposeOptions,
  EventOf,
  MessageOf,
  ProtocolMap,
  RequestOf,
  Wire,
  Wiring,
} from './types.js'
