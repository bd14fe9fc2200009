import fp from 'fastify-plugin'
import { ApiError, failure } from '../src/core/errors.js'
import { MAX_JSON_DEPTH } from '../src/core/json-depth.js'
import { jsonSyntaxError } from '../src/core/json-syntax.js'

/** A value still to visit, with the way back to the root (the JSON pointer is built only for a message). */
interface Pending { value: object, depth: number, parent: Pending | null, key: string }

/** The JSON pointer of `key` in `entry`, cut short for a message: keys are the client's and may be long. */
function pointer (entry: Pending | null, key: string | null): string {
  const keys = key === null ? [] : [key]
  for (let at = entry; at !== null && at.parent !== null; at = at.parent) keys.push(at.key)
  if (keys.length === 0) return 'the body'
  const path = keys.reverse().map((part) => `/${part.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
  return path.length > 100 ? `${path.slice(0, 100)}…` : path
}

/**
 * 400 INVALID_JSON saying where the body stops being JSON, never quoting it (the body is the client's, and may be
 * anything). Fastify's parser says only that it failed; a body that is JSON failed its check for prototype keys.
 */
function invalidJson (text: string): ApiError {
  const problem = jsonSyntaxError(text)
  if (problem === null) {
    return failure('INVALID_JSON', 'The body has a "__proto__" key, or a "constructor" key holding "prototype", which this service refuses; rename it.')
  }
  const before = text.slice(0, problem.offset)
  const line = before.split('\n').length
  const column = problem.offset - before.lastIndexOf('\n')
  return failure('INVALID_JSON', `The body is not valid JSON: at line ${line}, column ${column}, expected ${problem.expected}.`)
}

function nulCharacter (where: string): ApiError {
  return failure('NUL_CHARACTER',
    `The body has a NUL character (\\u0000) in ${where}; text here cannot hold it. Remove it and send again.`)
}

/**
 * Why a parsed JSON body is refused, or null: nested deeper than MAX_JSON_DEPTH, or a string or key
 * holding U+0000, which PostgreSQL cannot store in text. Iterative, so no body can exhaust the stack
 * here; it visits each value once, which costs little next to parsing it.
 */
export function jsonBodyProblem (body: unknown): ApiError | null {
  if (typeof body === 'string') return body.includes('\0') ? nulCharacter('the body') : null
  if (typeof body !== 'object' || body === null) return null
  const pending: Pending[] = [{ value: body, depth: 1, parent: null, key: '' }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > MAX_JSON_DEPTH) {
      return failure('BODY_TOO_DEEP', `The body is nested more than ${MAX_JSON_DEPTH} levels deep; send a flatter document.`)
    }
    for (const [key, child] of Object.entries(next.value)) {
      if (key.includes('\0')) return nulCharacter(`a key of ${pointer(next, null)}`)
      if (typeof child === 'string') {
        if (child.includes('\0')) return nulCharacter(pointer(next, key))
      } else if (typeof child === 'object' && child !== null) {
        pending.push({ value: child, depth: next.depth + 1, parent: next, key })
      }
    }
  }
  return null
}

/** The names of UTF-8 a client may give as charset (the WHATWG Encoding labels for it that make sense here). */
const UTF_8 = new Set(['utf-8', 'utf8'])
/** Fatal: bytes that are not UTF-8 (a Latin-1 é) are refused, never read as U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The charset parameter of a Content-Type, lowercased and unquoted, or null when there is none. */
function charsetOf (contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '')
  return match === null ? null : (match[2] ?? '').toLowerCase()
}

/**
 * application/json bodies are UTF-8 (any other charset is a 415, bytes that are not UTF-8 a 400), and
 * are parsed by Fastify's own parser, with its protections against
 * __proto__ and constructor.prototype keys (as configured on the server), and then refused if
 * jsonBodyProblem finds one: before validation, idempotency or a remote Bee ever see them.
 */
export default fp(async (fastify) => {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = fastify.initialConfig
  const parse = fastify.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning)
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes: Buffer, done) => {
    const charset = charsetOf(request.headers['content-type'])
    if (charset !== null && !UTF_8.has(charset)) {
      done(failure('UNSUPPORTED_CHARSET',
        `JSON bodies are read as UTF-8 (RFC 8259), not "${charset.slice(0, 40)}": send UTF-8 with charset=utf-8 or no charset.`), undefined)
      return
    }
    let body: string
    try {
      body = utf8.decode(bytes)
    } catch {
      done(failure('INVALID_UTF8', 'The body is not valid UTF-8: JSON bodies must be UTF-8 (RFC 8259); convert it before sending.'), undefined)
      return
    }
    parse(request, body, (error, value) => {
      if (error !== null) return done((error as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? invalidJson(body) : error, undefined)
      const problem = jsonBodyProblem(value)
      return problem === null ? done(null, value) : done(problem, undefined)
    })
  })
}, { name: 'json-bodies' })
