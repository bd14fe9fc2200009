import { test } from 'tap'
import { ApiError } from '../../../src/core/errors.js'
import { checkedVersion, nextVersion } from '../../../src/core/publishing/versions.js'

const current = {
  semver: '1.2.3',
  endpoint: 'https://bees.example.com/a',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  outputSchema: { type: 'object', properties: { shout: { type: 'string' } } }
}
const { semver: _, ...parts } = current
const refusal = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message }
    throw error
  }
  return null
}

test('a change makes the version it needs', async (t) => {
  t.equal(nextVersion(current, structuredClone(parts), undefined), '1.2.3', 'nothing versioned changed: the same version')
  t.equal(nextVersion(current, { ...parts, inputSchema: { required: ['text'], properties: { text: { type: 'string' } }, type: 'object' } }, undefined), '1.2.3',
    'the same schema with its keys in another order is no change')
  t.equal(nextVersion(current, { ...parts, endpoint: 'https://bees.example.com/b' }, undefined), '1.2.4', 'the endpoint alone: the next patch')
  const widened = { ...parts, inputSchema: { ...parts.inputSchema, properties: { ...parts.inputSchema.properties, loud: { type: 'boolean' } } } }
  t.equal(nextVersion(current, widened, undefined), '1.3.0', 'a compatible schema change: the next minor')
  t.equal(nextVersion(current, widened, '1.5.0'), '1.5.0', 'or the version asked for')
  t.equal(nextVersion(current, structuredClone(parts), '1.2.3'), '1.2.3', 'asking for the current version with no change is no change')
  t.equal(nextVersion(current, structuredClone(parts), '1.2.9'), '1.2.9', 'a new version may be asked for without a change')
})

test('what a change cannot do', async (t) => {
  const narrowed = { ...parts, inputSchema: { ...parts.inputSchema, required: ['text', 'loud'] } }
  t.match(refusal(() => nextVersion(current, narrowed, undefined)), { code: 'BREAKING_CHANGE', message: /"loud" is newly required.*version "2\.0\.0"/ })
  t.match(refusal(() => nextVersion(current, narrowed, '1.9.0')), { code: 'BREAKING_CHANGE' }, 'a minor is not a major')
  t.equal(nextVersion(current, narrowed, '2.0.0'), '2.0.0', 'a new major takes it')
  t.match(refusal(() => nextVersion(current, { ...parts, endpoint: 'https://bees.example.com/b' }, '1.2.3')), { code: 'INVALID_VERSION', message: /not above/ },
    'a version, once published, does not change')
  t.match(refusal(() => nextVersion(current, structuredClone(parts), '1.0.0')), { code: 'INVALID_VERSION' }, 'nor goes back')
  for (const bad of ['1', '1.2', 'v1.0.0', '1.0.0-beta', '01.0.0', '1.0.0+build', '']) {
    t.match(refusal(() => checkedVersion(bad)), { code: 'INVALID_VERSION' }, `"${bad}" is not a version to publish`)
  }
})
