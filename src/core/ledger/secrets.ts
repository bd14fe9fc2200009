import { createCipheriv, createDecipheriv, createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto'

/** 256 random bits, URL-safe, with a prefix so a leaked token is recognisable in secret scanners. */
export function newSecret (prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`
}

/**
 * Secrets are stored and looked up only as SHA-256 digests. An indexed lookup by digest leaks
 * nothing useful through timing: a caller cannot choose the digest bytes it is compared against.
 * One-shot `hash` (Node 20.12): a paid call digests its key twice, at 0.4 µs each instead of createHash's 1.2.
 */
export function hashSecret (secret: string): string {
  return hash('sha256', secret, 'hex')
}

/** Constant-time comparison of a presented secret with a configured one (both hashed to equal length). */
export function secretsMatch (presented: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(expected).digest())
}

/** 32 bytes written as base64 (standard or URL-safe, padded or not) or as 64 hex digits; null for anything else. */
export function parseSecretsKey (text: string): Buffer | null {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex')
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return null
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
  return key.length === 32 ? key : null
}

const SEALED_PREFIX = 'enc1'
const KEY_ID_LENGTH = 8
/** How long `enc1:<key id>:` is: the part of a sealed value that names its key (catalog/secret-key-migration.ts indexes it). */
export const SEALED_KEY_PREFIX_LENGTH = SEALED_PREFIX.length + 1 + KEY_ID_LENGTH + 1
const IV_BYTES = 12
const TAG_BYTES = 16

/** A key's public name, stored with what it encrypted: which key to decrypt with, without revealing the key. */
function keyId (key: Buffer): string {
  return createHash('sha256').update('apiary secrets key id\0').update(key).digest('hex').slice(0, KEY_ID_LENGTH)
}

export class WrongSecretsKey extends Error {}

/**
 * Encrypts the secrets Apiary must read back (signing secrets) with AES-256-GCM. A sealed value is
 * `enc1:<key id>:<iv>:<ciphertext and tag>` (base64url): it names the key that sealed it, so keys can
 * be rotated (seal with the current key, open with any known one), and a value stored before
 * encryption existed (plain `bsk_…`) is recognised and resealed. Each value is bound to its context
 * (the Bee's id), so a ciphertext copied onto another row does not open.
 */
export class SecretBox {
  readonly #keys: () => { current: Buffer, previous: Buffer[] }
  #resolved: { currentId: string, current: Buffer, byId: Map<string, Buffer> } | null = null

  /** `keys` is called once, when a secret is first sealed or opened. */
  constructor (keys: () => { current: Buffer, previous: Buffer[] }) {
    this.#keys = keys
  }

  #ring () {
    if (this.#resolved === null) {
      const { current, previous } = this.#keys()
      const byId = new Map([...previous, current].map((key) => [keyId(key), key]))
      this.#resolved = { currentId: keyId(current), current, byId }
    }
    return this.#resolved
  }

  seal (plaintext: string, context: string): string {
    const { currentId, current } = this.#ring()
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', current, iv).setAAD(Buffer.from(context))
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return [SEALED_PREFIX, currentId, iv.toString('base64url'), sealed.toString('base64url')].join(':')
  }

  open (stored: string, context: string): string {
    if (!isSealed(stored)) return stored
    const [, id = '', iv = '', data = ''] = stored.split(':')
    const key = this.#ring().byId.get(id)
    if (key === undefined) {
      throw new WrongSecretsKey(`a signing secret is encrypted with key ${id}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`)
    }
    const bytes = Buffer.from(data, 'base64url')
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url')).setAAD(Buffer.from(context))
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8')
    } catch {
      throw new WrongSecretsKey(`the signing secret of ${context} does not decrypt with key ${id}: it was altered or moved`)
    }
  }

  /** Is this stored value sealed with the current key (else it should be resealed)? */
  isCurrent (stored: string): boolean {
    return stored.startsWith(this.currentPrefix())
  }

  /** How every value sealed with the current key begins, so a store can find the others without reading every row. */
  currentPrefix (): string {
    return `${SEALED_PREFIX}:${this.#ring().currentId}:`
  }
}

const isSealed = (stored: string) => stored.startsWith(`${SEALED_PREFIX}:`)
