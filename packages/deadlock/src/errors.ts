import { InvalidArgumentError } from '@sd/transport'

/**
 * `@sd/deadlock` throws no errors of its own: a bad option or argument (a resource no site owns,
 * an unknown prevention rule or victim rule) is `@sd/transport`'s `InvalidArgumentError`, so one
 * code means one thing across the packages.
 */
export { InvalidArgumentError }
