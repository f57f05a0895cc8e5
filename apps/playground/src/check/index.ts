import { causalOrderCheck, totalOrderCheck } from './clocks.js'
import type { CheckSpec } from './spec.js'

/** The scenarios `sd check` can explore, one or more per package. */
export const checks: readonly CheckSpec[] = [causalOrderCheck, totalOrderCheck]

export type { CheckSpec }
