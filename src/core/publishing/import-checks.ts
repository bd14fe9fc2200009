import type { Static } from 'typebox'
import { failure } from '../errors.js'
import type { CatalogRepository } from '../ledger/catalog/catalog-repository.js'
import { fromMicros } from '../money.js'
import type { Caller } from '../principal.js'
import type { Registry } from '../registry.js'
import { BEE_ID_SHAPE, type ManagedBee } from '../schemas.js'
import { SchemaRefused, type JsonObject } from './json-schema.js'
import type { Publication, PublishingService } from './service.js'

/** How one check of an operation or tool went. */
export interface ImportCheck {
  name: 'id' | 'server' | 'parameters' | 'credential' | 'inputSchema' | 'outputSchema'
  passed: boolean
  /** Why it failed; absent when it passed. */
  message?: string
}

/** What an import needs to check ids and publish. */
export interface IdOptions {
  publishing: PublishingService
  store: Pick<CatalogRepository, 'catalogBee'>
  registry: Pick<Registry, 'builtin'>
}

const MAX_ID = 64

/** An id from a name (an operationId, a tool's name): lowercase words joined by hyphens, as Bee ids are, after the prefix. */
export function beeIdOf (prefix: string, name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((word) => word !== '')
  return [prefix, ...words].filter((word) => word !== '').join('-').slice(0, MAX_ID).replace(/-+$/, '')
}

export const checkOf = (name: ImportCheck['name'], problem: string | null): ImportCheck =>
  problem === null ? { name, passed: true } : { name, passed: false, message: problem }

/** Why an id cannot be a new Bee's; null when it can. `what` names what gives an id instead (the operation, the tool). */
export async function idProblem (options: IdOptions, id: string, what: string): Promise<string | null> {
  if (!BEE_ID_SHAPE.test(id)) return `"${id}" is not a Bee id: give one with ${what}`
  if (options.registry.builtin(id) !== undefined) return `"${id}" is a built-in Bee's id`
  return await options.store.catalogBee(id) === null ? null : `a Bee with the id "${id}" exists already`
}

/** A candidate under the id its publisher chose, its id check made again. */
function withId<T extends { id: string, checks: ImportCheck[] }> (candidate: T, id: string): T {
  const checks = candidate.checks.map((check) => check.name === 'id' ? checkOf('id', BEE_ID_SHAPE.test(id) ? null : `"${id}" is not a Bee id`) : check)
  return { ...candidate, id, checks }
}

/** A check's result from a conversion that refuses with SchemaRefused. */
export function schemaCheck (name: 'inputSchema' | 'outputSchema', convert: () => JsonObject): { check: ImportCheck, schema: JsonObject | null } {
  try {
    return { check: { name, passed: true }, schema: convert() }
  } catch (error) {
    if (!(error instanceof SchemaRefused)) throw error
    // The parser inlines every $ref but a circular one, which is left pointing into the document, not the schema.
    const circular = /\$ref "(#\/[^"]+)" points at nothing/.exec(error.message)?.[1]
    const message = circular === undefined
      ? error.message
      : `${name} refers to ${circular} inside itself: a Bee's schema is written out whole, so it cannot be recursive`
    return { check: { name, passed: false, message }, schema: null }
  }
}

export function requirePublisher (caller: Caller): void {
  if (caller.principal.kind !== 'publisher') {
    throw failure('PUBLISHER_REQUIRED', 'Bees are published with a publisher key: issue one with POST /api/publishers.')
  }
}

/** What a publisher chose of a preview: its id (absent: the one made), and its price. */
export interface Choice {
  id?: string | undefined
  priceMicros: number
}

/** The candidate a choice names (undefined: none), how to name it, and what to say when there is none. */
export interface Found<T> {
  found: T | undefined
  named: string
  unknown: string
}

/**
 * The candidates chosen, each under its chosen id, at its price; refused when one is unknown or fails a check (its
 * own, or one `more` adds), naming each failure.
 */
export function chosen<T extends { id: string, checks: ImportCheck[] }, C extends Choice> (choices: C[], find: (choice: C) => Found<T>,
  more: (candidate: T) => ImportCheck[] = () => []): Array<{ candidate: T, priceMicros: number }> {
  return choices.map((choice) => {
    const { found, named, unknown } = find(choice)
    if (found === undefined) throw failure('IMPORT_OPERATION_UNKNOWN', unknown)
    const candidate = choice.id === undefined ? found : withId(found, choice.id)
    const failed = [...candidate.checks.filter((check) => !check.passed), ...more(candidate)]
    if (failed.length > 0) {
      throw failure('IMPORT_OPERATION_REFUSED', `${named} cannot be imported: ${failed.map((check) => `${check.name}: ${check.message ?? ''}`).join('; ')}.`)
    }
    return { candidate, priceMicros: choice.priceMicros }
  })
}

export const pricingOf = (priceMicros: number): Publication['pricing'] =>
  priceMicros === 0 ? { type: 'free' } : { type: 'pay-per-use', costPerCall: fromMicros(priceMicros) }

/** Publishes each, in order, as the caller's, without its signing secret (an imported Bee's upstream does not check it). */
export async function publishAll (publishing: PublishingService, caller: Caller, publications: Publication[]): Promise<Array<Static<typeof ManagedBee>>> {
  const published: Array<Static<typeof ManagedBee>> = []
  // One at a time, through the publishing use case: each Bee is checked and counted against the quota as any other.
  for (const publication of publications) {
    const { signingSecret: _unused, ...bee } = await publishing.publish(caller, publication)
    published.push(bee)
  }
  caller.log.info({ beeIds: published.map((bee) => bee.id) }, 'imported Bees published')
  return published
}
