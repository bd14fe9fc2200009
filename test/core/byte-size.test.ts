import { test } from 'tap'
import { byteSize } from '../../src/core/byte-size.js'

test('a size in the largest binary unit it is round in, else in bytes', async (t) => {
  t.equal(byteSize(2 * 1024 * 1024), '2 MiB')
  t.equal(byteSize(1.5 * 1024 * 1024), '1.5 MiB')
  t.equal(byteSize(1.25 * 1024 * 1024), '1.25 MiB')
  t.equal(byteSize(512 * 1024), '512 KiB')
  t.equal(byteSize(3 * 1024 ** 3), '3 GiB')
  t.equal(byteSize(1024), '1 KiB')
  t.equal(byteSize(1025), '1,025 bytes')
  t.equal(byteSize(1000), '1,000 bytes')
  t.equal(byteSize(1), '1 byte')
})
