import semver from 'semver'
import type { RegisteredBee } from './bee.js'
import { type ApiError, failure } from './errors.js'
import { afterStep, type Stepped } from './stepped.js'

/** A pin: a major, a minor or an exact version, each a number without leading zeros. */
const PIN = /^(?:0|[1-9]\d{0,8})(?:\.(?:0|[1-9]\d{0,8})){0,2}$/

/** Every version of a Bee, the latest (its current one) first. */
export function allVersions (bee: RegisteredBee): Stepped<readonly RegisteredBee[]> {
  const earlier = bee.earlierVersions?.() ?? []
  return afterStep(earlier, (versions) => [bee, ...versions])
}

/**
 * The Bee's highest version a pin (`1`, `1.2`, `1.2.3`) matches: the Bee itself when its current version does (the
 * latest is the highest), with no read; else an earlier one (see RegisteredBee.earlierVersions). An error: the pin
 * is malformed (400) or matches none (404).
 */
export function pinnedVersion (bee: RegisteredBee, pin: string): Stepped<RegisteredBee | ApiError> {
  const { id, version } = bee.record
  if (!PIN.test(pin)) {
    return failure('INVALID_VERSION', `Bee-Version "${pin.slice(0, 50)}" is not a version to pin: send a major (1), a minor (1.2) or an exact version (1.2.3).`)
  }
  if (semver.satisfies(version, pin)) return bee
  const pick = (versions: readonly RegisteredBee[]) => versions.find((candidate) => semver.satisfies(candidate.record.version, pin)) ??
    failure('BEE_VERSION_NOT_FOUND', `${id} has no version matching Bee-Version ${pin}; its latest is ${version}. GET /api/bees/${id}/versions lists them.`)
  const earlier = bee.earlierVersions?.() ?? []
  return afterStep(earlier, pick)
}
