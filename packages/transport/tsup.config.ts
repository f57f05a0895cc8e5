import { packageBuild } from '../../tsup.shared'

export default packageBuild({
  index: 'src/index.ts',
  udp: 'src/udp/index.ts',
  testing: 'src/testing/index.ts',
})
