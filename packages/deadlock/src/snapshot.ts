// The shape checks every restore() of this package uses, shared with the other packages.
export { snapshotFields, snapshotList } from '@sd/transport'
