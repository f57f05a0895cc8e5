export * from './driver.js'
export * from './time.js'
