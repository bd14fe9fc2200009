import type { FastifyInstance } from 'fastify'

/** Mints a verification token with `credential` (a wallet key, or a token for a child) and returns the answer. */
export async function mint (app: FastifyInstance, credential: string, body: Record<string, unknown>) {
  return await app.inject({ method: 'POST', url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': credential }, payload: body })
}

export interface Minted { id: string, token: string, cap: number, spent: number, remaining: number, parentId: string | null, revokedAt: string | null }

/** Mints a token that must be granted. */
export async function minted (app: FastifyInstance, credential: string, body: Record<string, unknown>): Promise<Minted> {
  const response = await mint(app, credential, body)
  if (response.statusCode !== 201) throw new Error(`minting failed: ${response.body}`)
  return response.json<Minted>()
}

/** The tokens `credential` may see, by id. */
export async function tokensOf (app: FastifyInstance, credential: string): Promise<Map<string, Minted>> {
  const response = await app.inject({ url: '/api/wallet/tokens?limit=200', headers: { 'x-registry-wallet-token': credential } })
  if (response.statusCode !== 200) throw new Error(`listing failed: ${response.body}`)
  return new Map(response.json<{ tokens: Minted[] }>().tokens.map((token) => [token.id, token]))
}
