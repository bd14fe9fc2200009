import { Transform, type Readable } from 'node:stream'
import zlib from 'node:zlib'
import type { FastifyRequest, RequestPayload } from 'fastify'
import fp from 'fastify-plugin'
import { byteSize } from '../src/core/byte-size.js'
import { failure } from '../src/core/errors.js'

/** The codings a body may arrive in (RFC 9110 §8.4.1), by name; `identity` means none. */
const decoders: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress()
}

/** The decoded body, with the count of encoded bytes Fastify compares with Content-Length. */
type Decoded = Transform & { receivedEncodedLength: number }

/**
 * Decodes a body sent with `Content-Encoding: gzip`, `deflate` or `br` before the JSON parser reads it, and
 * refuses any other coding with 415 instead of parsing compressed bytes as text. The decoded size counts
 * against BODY_LIMIT_BYTES (so does the encoded size): a small body that inflates to gigabytes is stopped
 * at the limit, and the decompressor with it.
 */
export default fp(async (fastify) => {
  // A callback hook, not an async one: the usual request (no body, or one sent as it is) passes on without a promise.
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const { 'content-length': length, 'transfer-encoding': chunked, 'content-encoding': encoding } = request.headers
    if (((length === undefined || length === '0') && chunked === undefined) || encoding === undefined) {
      done(null, payload)
      return
    }
    let body: RequestPayload
    try {
      body = decodedBody(request, payload, encoding)
    } catch (error) {
      done(error as Error)
      return
    }
    done(null, body)
  })

  /** The body decoded as its Content-Encoding says, or the body itself for `identity`; throws for a coding it cannot read. */
  function decodedBody (request: FastifyRequest, payload: RequestPayload, encoding: string): RequestPayload {
    const codings = encoding.split(',')
      .map((coding) => coding.trim().toLowerCase())
      .filter((coding) => coding !== '' && coding !== 'identity')
    if (codings.length === 0) return payload
    const [coding = ''] = codings
    const decoder = codings.length === 1 ? decoders[coding]?.() : undefined
    if (decoder === undefined) {
      throw failure('UNSUPPORTED_CONTENT_ENCODING',
        `This service reads bodies sent as they are or with one Content-Encoding of gzip, deflate or br, not "${codings.join(', ').slice(0, 100)}".`)
    }
    const limit = request.routeOptions.bodyLimit ?? fastify.config.BODY_LIMIT_BYTES
    let decodedLength = 0
    const decoded = Object.assign(new Transform({
      transform (chunk: Buffer, _encoding, done) {
        decodedLength += chunk.length
        if (decodedLength > limit) {
          done(failure('PAYLOAD_TOO_LARGE', `The decompressed body is larger than the ${byteSize(limit)} this service accepts (BODY_LIMIT_BYTES).`))
          return
        }
        done(null, chunk)
      }
    }), { receivedEncodedLength: 0 }) as Decoded
    const source = payload as Readable
    source.on('data', (chunk: Buffer) => { decoded.receivedEncodedLength += chunk.length })
    source.on('error', (error) => decoded.destroy(error))
    decoder.on('error', () => decoded.destroy(failure('INVALID_CONTENT_ENCODING',
      `The body is not valid ${coding} data, as its Content-Encoding says it is.`)))
    // Fastify stops listening once it has refused the body (too large by encoded size): an error after that
    // has no one to answer, and must not become an uncaught exception.
    decoded.on('error', () => {})
    decoded.on('close', () => {
      source.unpipe(decoder)
      decoder.destroy()
    })
    return source.pipe(decoder).pipe(decoded)
  }
}, { name: 'content-encoding', dependencies: ['config'] })
