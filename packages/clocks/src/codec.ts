/**
 * The codecs of the clocks: a compact binary form (`codec-binary.ts`) and a JSON form
 * (`codec-json.ts`) of every kind of clock value (`codec-kinds.ts`).
 */

export { decodeClock, encodeClock } from './codec-binary.js'
export { clockFromJSON, clockToJSON, clockToJSONValue } from './codec-json.js'
export type { ClockKind, DecodedClock, EncodableClock } from './codec-kinds.js'
