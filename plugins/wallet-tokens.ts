import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { failureAs } from '../src/core/errors.js'
import { SigningKeyring } from '../src/core/tokens/keyring.js'
import { holderOf, type TokenHolder } from '../src/core/tokens/holder.js'
import { TokenSigner } from '../src/core/tokens/verifier.js'
import { WALLET_HEADER_NAME } from '../src/core/schemas.js'
import { walletTokenOf } from '../src/http/wallet-token.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Verification tokens: the signing keys every instance shares through the ledger, and the signer that uses them. */
    walletTokens: { keyring: SigningKeyring, signer: TokenSigner }
    /** onRequest hook of the token routes: the wallet key, or a verification token, in X-Registry-Wallet-Token. */
    requireTokenHolder (request: FastifyRequest): Promise<void>
  }
  interface FastifyRequest {
    /** The holder requireTokenHolder found. */
    tokenHolder: TokenHolder | null
  }
}

/**
 * The signing keyring and the token signer, and the hook that tells who manages tokens: a wallet (by
 * its key) or a token (by itself). Checked in onRequest, before the body is read.
 */
export default fp(async (fastify) => {
  const { config, ledger } = fastify
  const keyring = new SigningKeyring(ledger.signingKeys, { rotationSeconds: config.TOKEN_KEY_ROTATION_DAYS * 24 * 3600 })
  const signer = new TokenSigner(keyring)
  fastify.decorate('walletTokens', { keyring, signer })
  fastify.decorateRequest('tokenHolder', null)
  fastify.decorate('requireTokenHolder', async function requireTokenHolder (request: FastifyRequest) {
    const credential = walletTokenOf(request)
    if (credential === undefined) {
      throw failureAs('WALLET_TOKEN_MISSING', 401, `Send your wallet key, or a verification token, in ${WALLET_HEADER_NAME}.`)
    }
    request.tokenHolder = await holderOf(ledger, signer, credential, keyring.now())
  })
}, { name: 'wallet-tokens', dependencies: ['config', 'ledger'] })
