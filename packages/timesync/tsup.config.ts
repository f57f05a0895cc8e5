import { packageBuild } from '../../tsup.shared.ts'

export default packageBuild({ index: 'src/index.ts', udp: 'src/udp.ts' })
