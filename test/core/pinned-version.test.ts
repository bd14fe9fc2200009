import { test } from 'tap'
import type { RegisteredBee } from '../../src/core/bee.js'
import { ApiError } from '../../src/core/errors.js'
import { allVersions, pinnedVersion } from '../../src/core/pinned-version.js'

/** Only what pinning reads of a Bee: its id and version, and its earlier versions. */
const bee = (version: string, earlier?: RegisteredBee[] | Promise<RegisteredBee[]>): RegisteredBee =>
  ({ record: { id: 'shouter', version }, ...(earlier === undefined ? {} : { earlierVersions: () => earlier }) }) as unknown as RegisteredBee
const versionOf = (found: RegisteredBee | ApiError) => found instanceof ApiError ? found.code : found.record.version

test('a pin takes the highest version it matches', async (t) => {
  const earlier = [bee('2.0.0'), bee('1.4.1'), bee('1.4.0'), bee('1.2.0'), bee('0.9.0')]
  const latest = bee('2.1.0', earlier)
  for (const [pin, expected] of [['2', '2.1.0'], ['2.1', '2.1.0'], ['2.0', '2.0.0'], ['2.0.0', '2.0.0'], ['1', '1.4.1'], ['1.4', '1.4.1'],
    ['1.4.0', '1.4.0'], ['1.2', '1.2.0'], ['0', '0.9.0'], ['1.3', 'BEE_VERSION_NOT_FOUND'], ['3', 'BEE_VERSION_NOT_FOUND']]) {
    t.equal(versionOf(await pinnedVersion(latest, pin as string)), expected, `pin ${pin}`)
  }
  t.equal(pinnedVersion(latest, '2'), latest, 'the latest matches at once, without reading the earlier versions')
  for (const malformed of ['', 'latest', 'v1', '1.', '01', '1.2.3.4', '^1', '1.x', '>=1', '1 || 2', '1.2.3-beta']) {
    t.equal(versionOf(await pinnedVersion(latest, malformed)), 'INVALID_VERSION', `"${malformed}" is not a pin`)
  }
})

test('earlier versions read once, a Bee of one version, and the list', async (t) => {
  const read = Promise.resolve([bee('1.0.0')])
  const latest = bee('2.0.0', read)
  t.ok(pinnedVersion(latest, '1') instanceof Promise, 'an earlier version may need a read')
  t.equal(versionOf(await pinnedVersion(latest, '1')), '1.0.0')
  t.same((await allVersions(latest)).map((version) => version.record.version), ['2.0.0', '1.0.0'], 'every version, the latest first')
  const only = bee('1.0.0')
  t.equal(versionOf(await pinnedVersion(only, '2')), 'BEE_VERSION_NOT_FOUND', 'a built-in Bee has its one version')
  t.same(allVersions(only), [only])
})
