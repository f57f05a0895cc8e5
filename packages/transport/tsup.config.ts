import { packageBuild } from '../../tsup.shared.ts'

export default packageBuild({
  index: 'src/index.ts',
  udp: 'src/udp/index.ts',
  explore: 'src/explore/index.ts',
  testing: 'src/testing/index.ts',
  history: 'src/history/index.ts',
  'storage-file': 'src/storage-file/index.ts',
})
