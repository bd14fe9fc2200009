import { gzipSync } from 'node:zlib'
import fc from 'fast-check'

/** The part of JSON Schema (as OpenAPI 3.0 writes it) that the generators read. */
export interface Schema {
  type?: string
  enum?: unknown[]
  nullable?: boolean
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  minItems?: number
  maxItems?: number
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: boolean | number
  exclusiveMaximum?: boolean | number
  pattern?: string
  format?: string
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  default?: unknown
}

/** Text fragments no schema should choke on: non-finite and huge numbers, unicode edge cases, injections. */
export const nastyStrings = [
  'Infinity', '-Infinity', 'NaN', '1e400', '-1e400', '-0', '0x10', ' 1', '1 ', '1_000', '', ' ',
  '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\u202eevil\u202c', '\u200f\u05e9\u05dc\u05d5\u05dd',
  'e\u0301'.repeat(500), '\u0301'.repeat(10_000), '\ufeff', '\u200b\u200b', '🐝'.repeat(100), 'a'.repeat(10_000),
  '../../../etc/passwd', '<script>alert(1)</script>', '\' OR 1=1 --', '$' + '{7*7}', '{{7*7}}', '%00', '%zz',
  '__proto__', 'constructor', 'prototype', 'http://[' + ':'.repeat(10_000), 'a@' + 'a'.repeat(300) + '.com',
  '9999-99-99T99:99:99Z', '2026-11-23T23:59:60Z'
]

/** Raw JSON texts for a value: what JSON.stringify cannot write (1e400), wrong types, deep nesting, poisoned keys. */
export const nastyJsonTexts = [
  '1e400', '-1e400', '-0', '1e-400', '9007199254740993', '123456789012345678901234567890', '0.1e1', '1E2',
  'true', 'false', 'null', '[]', '{}', '[{}]', '[null]', '""',
  '['.repeat(70) + ']'.repeat(70), '{"a":'.repeat(70) + '1' + '}'.repeat(70),
  '['.repeat(5000) + ']'.repeat(5000),
  '{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"isAdmin":true}}}',
  '{"a":1,"a":2}', '[' + '1,'.repeat(20_000) + '1]', '[' + '"x",'.repeat(2000) + '"x"]',
  ...nastyStrings.map((text) => JSON.stringify(text))
]

/** A value that follows the schema, as far as these generators read schemas. */
export function valid (schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 6) return fc.jsonValue({ maxDepth: 2 })
  const plain = plainValid(schema, depth)
  return schema.nullable === true ? fc.oneof({ weight: 5, arbitrary: plain }, { weight: 1, arbitrary: fc.constant(null) }) : plain
}

function plainValid (schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum)
  const branches = schema.anyOf ?? schema.oneOf
  if (branches !== undefined && branches.length > 0) return fc.oneof(...branches.map((branch) => valid(branch, depth + 1)))
  if (schema.allOf !== undefined && schema.allOf.length > 0) return valid(Object.assign({}, ...schema.allOf) as Schema, depth + 1)
  switch (schema.type) {
    case 'string': return validString(schema)
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1e6
      const max = schema.maximum ?? 1e6
      if (schema.type === 'integer') return fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
        .filter((value) => (schema.exclusiveMinimum !== true || value > min) && (schema.exclusiveMaximum !== true || value < max))
    }
    case 'boolean': return fc.boolean()
    case 'array': return fc.array(valid(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) })
    case 'object':
    case undefined: {
      const properties = schema.properties ?? {}
      const required = new Set(schema.required ?? [])
      const model: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [name, property] of Object.entries(properties)) model[name] = valid(property, depth + 1)
      return fc.record(model, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) })
    }
    default: return fc.jsonValue({ maxDepth: 2 })
  }
}

function validString (schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0
  const maxLength = Math.min(schema.maxLength ?? 40, 40)
  switch (schema.format) {
    case 'email': return fc.emailAddress()
    case 'date-time': return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString())
    case 'uri':
    case 'url': return fc.webUrl()
  }
  if (schema.pattern !== undefined) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity))
    } catch {}
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength), unit: 'grapheme' })
}

/** Raw JSON text for a value of the schema: valid, or one of the nasty texts. */
export function jsonText (schema: Schema | undefined): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: valid(schema).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 2, arbitrary: fc.constantFrom(...nastyJsonTexts) }
  )
}

/** An object's JSON text from its members' texts (so members can be texts JSON.stringify could not write). */
export function objectText (members: Array<[string, string]>): string {
  return `{${members.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(',')}}`
}

export interface Body {
  bytes: string | Buffer
  contentType: string | undefined
  contentEncoding?: string
  /** What kind of body this is, for the report. */
  kind: string
}

const contentTypes = [
  'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16',
  'application/json; charset="UTF-8"', 'APPLICATION/JSON', 'application/json;;', 'application/vnd.api+json',
  'text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  'application/json, text/plain', 'application/octet-stream', '*/*', ''
]

/**
 * A request body for an operation whose JSON body follows `schema`: valid, valid with one member
 * replaced by a nasty value, with a poisoned or duplicate key added, wholly wrong, or in another
 * encoding, charset or content type.
 */
export function body (schema: Schema | undefined): fc.Arbitrary<Body | undefined> {
  const json = (kind: string) => (text: string): Body => ({ bytes: text, contentType: 'application/json', kind })
  const members = valid(schema).map((value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.entries(value).map(([key, member]): [string, string] => [key, JSON.stringify(member) ?? 'null'])
      : [])
  const names = Object.keys(schema?.properties ?? {})
  const memberNames = names.length === 0 ? fc.string({ maxLength: 10 }) : fc.constantFrom(...names)
  return fc.oneof(
    { weight: 6, arbitrary: valid(schema).map((value) => JSON.stringify(value) ?? 'null').map(json('valid')) },
    {
      weight: 5,
      arbitrary: fc.tuple(members, memberNames, fc.constantFrom(...nastyJsonTexts))
        .map(([fields, name, text]) => objectText([...fields.filter(([key]) => key !== name), [name, text]]))
        .map(json('one member nasty'))
    },
    {
      weight: 2,
      arbitrary: fc.tuple(members, fc.constantFrom('__proto__', 'constructor', 'prototype', 'a\u0000', 'k'.repeat(5000), '\ud800'), fc.constantFrom(...nastyJsonTexts))
        .map(([fields, key, text]) => objectText([...fields, [key, text]]))
        .map(json('poisoned key'))
    },
    {
      weight: 1,
      arbitrary: members
        .map((fields) => fields.length > 0 ? fields : [['a', '1'] as [string, string]])
        .map((fields) => objectText([...fields, ...fields.map(([key]): [string, string] => [key, '"duplicate"'])]))
        .map(json('duplicate keys'))
    },
    { weight: 3, arbitrary: fc.constantFrom(...nastyJsonTexts, '', ' ', '{', '{"a":}', 'nul', '\ufeff{}', '{}garbage', '[]'.repeat(3)).map(json('whole body nasty')) },
    {
      weight: 2,
      arbitrary: fc.tuple(valid(schema), fc.constantFrom(...contentTypes)).map(([value, contentType]): Body => ({
        bytes: JSON.stringify(value) ?? 'null', contentType: contentType === '' ? undefined : contentType, kind: `content type ${contentType || 'absent'}`
      }))
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid(schema), fc.constantFrom('latin1', 'utf16le', 'gzip', 'invalid-utf8', 'bom')).map(([value, encoding]): Body => {
        const text = JSON.stringify(value) ?? 'null'
        switch (encoding) {
          case 'gzip': return { bytes: gzipSync(text), contentType: 'application/json', contentEncoding: 'gzip', kind: 'gzip-compressed' }
          case 'invalid-utf8': return { bytes: Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from([0xff, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from(text.slice(-1))]), contentType: 'application/json', kind: 'invalid UTF-8' }
          case 'bom': return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), contentType: 'application/json', kind: 'UTF-8 BOM' }
          default: return {
            bytes: Buffer.from(text.replace(/"([^"]*)"/, '"$1é"'), encoding as BufferEncoding),
            contentType: `application/json; charset=${encoding === 'utf16le' ? 'utf-16' : encoding}`,
            kind: `${encoding} bytes`
          }
        }
      })
    },
    { weight: 1, arbitrary: fc.constant(undefined) }
  )
}

/** Percent-encodes the UTF-8 bytes of a text (lone surrogates become U+FFFD, as any client would send them). */
export function percentEncoded (text: string): string {
  return [...Buffer.from(text)].map((byte) => /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
}

/** Already-encoded URL text that decodes badly or surprisingly. */
const rawUrlTexts = ['%zz', '%', '%ED%A0%80', '%FF%FE', '%00', '%2e%2e', '..%2F..%2F', '%2F', '%C0%AF', 'a%20b', '%E2%80%AE']

/** A path parameter: one of the useful ids, or something nasty, already encoded. */
export function pathParameter (useful: string[], schema: Schema | undefined): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...useful).map(percentEncoded) },
    { weight: 2, arbitrary: valid(schema).map((value) => percentEncoded(String(value))) },
    { weight: 2, arbitrary: fc.constantFrom(...nastyStrings).filter((text) => text !== '').map(percentEncoded) },
    { weight: 1, arbitrary: fc.constantFrom(...rawUrlTexts) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 200, unit: 'binary' }).map(percentEncoded) }
  )
}

/** A query value: per the schema, nasty, or raw text that decodes badly. */
const nastyNumbers = ['Infinity', '-Infinity', '+Infinity', 'NaN', '1e400', '-1e400', '-0', '1e3', '0x10', '0b1', '1.0', '1.5', '0', '-1', '4294967297', '9007199254740993', ' 1', '']

export function queryValue (schema: Schema | undefined): fc.Arbitrary<string> {
  const numeric = schema?.type === 'integer' || schema?.type === 'number'
  return fc.oneof(
    { weight: numeric ? 4 : 0, arbitrary: fc.constantFrom(...nastyNumbers).map(percentEncoded) },
    { weight: 4, arbitrary: valid(schema).map((value) => percentEncoded(String(value))) },
    { weight: 3, arbitrary: fc.constantFrom(...nastyStrings, '0', '-1', '1.5', '501', '4294967297', '1e3', '+5', '05').map(percentEncoded) },
    { weight: 1, arbitrary: fc.constantFrom(...rawUrlTexts) }
  )
}

/** A header value Node's client will send: latin-1 text, nasty or long. */
export const headerText = fc.oneof(
  fc.constantFrom('', ' ', 'x'.repeat(300), 'y'.repeat(15_000), '\u00e9\u00ff', 'null', 'undefined', '[object Object]', '../..', 'a\tb'),
  fc.string({ maxLength: 80, unit: 'binary' }).map((text) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?'))
)
