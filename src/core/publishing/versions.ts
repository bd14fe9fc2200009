import { isDeepStrictEqual } from 'node:util'
import semver from 'semver'
import { failure } from '../errors.js'
import type { JsonObject } from './json-schema.js'
import { breakingChanges } from './schema-diff.js'

/** What a version of a published Bee fixes: a change of any of it is a new version. */
export interface VersionedParts {
  semver: string
  endpoint: string
  inputSchema: JsonObject
  outputSchema: JsonObject
}

/** A version as a publisher gives it: three numbers, without a pre-release or build part (which pins could not name). */
const RELEASE = /^(?:0|[1-9]\d{0,8})\.(?:0|[1-9]\d{0,8})\.(?:0|[1-9]\d{0,8})$/

/** The version a publisher asked for, when it is one. */
export function checkedVersion (version: string): string {
  if (RELEASE.test(version)) return version
  throw failure('INVALID_VERSION', `version "${version.slice(0, 50)}" is not a semantic version of three numbers, e.g. 1.0.0 (no pre-release or build part).`)
}

/**
 * The version a change of a published Bee makes. Unchanged when its schemas and endpoint are and no version was asked
 * for; otherwise a new one, since a version is immutable: the one asked for, above the current one, or else the next
 * minor (the schemas changed compatibly) or patch (the endpoint alone). A change that breaks callers needs a new major,
 * asked for: without one it is refused, and the refusal lists what breaks.
 */
export function nextVersion (current: VersionedParts, next: Omit<VersionedParts, 'semver'>, asked: string | undefined): string {
  const schemasChanged = !isDeepStrictEqual(current.inputSchema, next.inputSchema) || !isDeepStrictEqual(current.outputSchema, next.outputSchema)
  const changed = schemasChanged || current.endpoint !== next.endpoint
  if (asked !== undefined) checkedVersion(asked)
  if (asked === current.semver && !changed) return current.semver
  if (asked === undefined && !changed) return current.semver
  if (asked !== undefined && !semver.gt(asked, current.semver)) {
    throw failure('INVALID_VERSION', `version ${asked} is not above the Bee's current ${current.semver}: a version, once published, does not change.`)
  }
  const breaking = schemasChanged ? breakingChanges(current, next) : []
  if (breaking.length > 0 && (asked === undefined || semver.major(asked) <= semver.major(current.semver))) {
    const major = `${semver.major(current.semver) + 1}.0.0`
    const list = breaking.map((change) => `${change.field}: ${change.reason}`).join('; ')
    throw failure('BREAKING_CHANGE', `This change breaks callers of ${current.semver}: ${list}. Publish it as a new major (version "${major}"), ` +
      'which callers pinned to the current one do not get, or keep it compatible.', { details: breaking })
  }
  return asked ?? semver.inc(current.semver, schemasChanged ? 'minor' : 'patch') as string
}
