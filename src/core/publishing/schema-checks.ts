import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { SAFE_FORMAT_NAMES, SAFE_FORMATS } from '../formats.js'
import { compileBodySchema } from '../validation.js'
import { SchemaRefused, type Json, type JsonObject } from './json-schema.js'
import { checkPatterns } from './pattern-safety.js'
import { eachSchema } from './schema-walk.js'
import { checkZodConvertible } from './zod-compat.js'

/**
 * Ajv fills in a `default` only on a schema directly under `properties` (useDefaults). Strict mode
 * refuses some of the other places (a property inside an anyOf branch) but not all: a default on the
 * root, on an anyOf or oneOf branch itself, on `items` or on `additionalProperties` compiles, is shown
 * in the OpenAPI document, and is never applied. An agent would leave the field out and get no value.
 */
export function checkDefaults (schema: Json, where: string): void {
  eachSchema(schema, (node, path, underProperties) => {
    if (Object.hasOwn(node, 'default') && !underProperties) {
      throw new SchemaRefused(`${where}${path || ' (the root)'}: this "default" would never be applied; ` +
        'a default takes effect only on a property\'s own schema (under "properties"), so move it there or drop it')
    }
  })
}

/**
 * Every `format` must be one with a linear-time check (src/core/formats.ts): a format runs against every
 * caller's input before payment, and ajv-formats' own `url` took seconds on one crafted string.
 */
export function checkFormats (schema: Json, where: string): void {
  eachSchema(schema, (node, path) => {
    if (!Object.hasOwn(node, 'format')) return
    const format = node.format
    if (typeof format === 'string' && Object.hasOwn(SAFE_FORMATS, format)) return
    throw new SchemaRefused(`${where}${path}: format ${JSON.stringify(format)} is not supported: a format is checked on every ` +
      'call, so only formats with a check that runs in time linear in the input are offered: ' + SAFE_FORMAT_NAMES.join(', '))
  })
}

/**
 * Schemas that passed checkLoadable in this process, by the SHA-256 of their JSON text: the checks depend on the text
 * alone, and compiling a schema (an Ajv of its own, code generation) cost about 0.5 ms of every publish and of every
 * PATCH (which checks the schemas it keeps), where the digest costs microseconds. A schema is refused again in full,
 * with its message; only passes are kept, the most recently used 2,000 (a digest each, about 300 KB).
 */
const loadable = new LRUCache<string, true>({ max: 2000 })
const digestOf = (schema: JsonObject) => createHash('sha256').update(JSON.stringify(schema)).digest('base64')

/**
 * Can the registry load this schema? It is compiled with the options of the Ajv that validates
 * execute bodies at load (src/core/validation.ts), so whatever they refuse (strict mode, a `default`
 * that useDefaults would ignore, …) is refused here, and whatever passes here loads. The compiled
 * function is dropped with its own Ajv: the registry compiles its own copy. The schema must also
 * convert to Zod as Ajv reads it (zod-compat.ts): agents are promised Zod-compatible schemas.
 */
export function checkLoadable (schema: JsonObject, where: string): void {
  const digest = digestOf(schema)
  if (loadable.has(digest)) return
  checkPatterns(schema, where)
  checkFormats(schema, where)
  try {
    compileBodySchema(schema)
  } catch (error) {
    throw new SchemaRefused(`${where} is not a valid JSON Schema: ${(error as Error).message}`)
  }
  checkZodConvertible(schema, where)
  loadable.set(digest, true)
}

/** Has this schema passed checkLoadable in this process? Then every check it makes passes again. */
export const knownLoadable = (schema: JsonObject): boolean => loadable.has(digestOf(schema))
