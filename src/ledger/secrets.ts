import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** 256 random bits, URL-safe, with a prefix so a leaked token is recognisable in secret scanners. */
export function newSecret (prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`
}

/**
 * Secrets are stored and looked up only as SHA-256 digests. An indexed lookup by digest leaks
 * nothing useful through timing: a caller cannot choose the digest bytes it is compared against.
 */
export function hashSecret (secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** Constant-time comparison of a presented secret with a configured one (both hashed to equal length). */
export function secretsMatch (presented: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(expected).digest())
}
