// The resource's side of fencing tokens: refuses a token older than one it already accepted.
export { createFence, type Fence, type FenceCheck, type FenceVerdict } from './fence.js'
export { DEFAULT_FENCE_NAME, type FenceOptions } from './options.js'
export type { FenceMarks } from './stored.js'
