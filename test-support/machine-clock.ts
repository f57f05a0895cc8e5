/**
 * The machine's monotonic clock (CLOCK_MONOTONIC, ms since boot), one clock for the test and its
 * worker processes, so the times a worker stamps compare with the test's own. Not
 * `performance.timeOrigin + performance.now()`: its origin pairs a wall-clock reading with a
 * monotonic one taken apart while the process starts, and now and then a process started under
 * load reads several ms off the others for its whole life.
 */
export const machineNow = () => Number(process.hrtime.bigint()) / 1e6
