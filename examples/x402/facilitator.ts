import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { authorizationTypes } from '@x402/evm'
import { verifyTypedData, type Address, type Hex } from 'viem'

/** Base Sepolia and its USDC, as @x402/evm's default asset table has them: what the tests pay in. */
export const NETWORK = 'eip155:84532'
export const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
export const PAY_TO = '0x1111111111111111111111111111111111111111'

export type SettleMode = 'ok' | 'refuse' | 'hang'

interface Requirements { scheme: string, network: string, asset: string, amount: string, payTo: string, extra: Record<string, unknown> }
interface Authorization { from: Address, to: Address, value: string, validAfter: string, validBefore: string, nonce: Hex }
interface Body { paymentPayload: { accepted: Requirements, payload: { authorization?: Authorization, signature?: Hex } }, paymentRequirements: Requirements }

export interface FakeFacilitator {
  url: string
  /** Every settlement it made, in order. */
  settled: Array<{ payer: string, nonce: string, amount: string, transaction: string }>
  verifies: number
  settleMode: SettleMode
  close (): Promise<void>
}

async function readJson (request: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString()) as Body
}

function send (response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

/**
 * Run as `npx tsx examples/x402/facilitator.ts` (README, x402): a facilitator on port 4020 (or PORT)
 * to try x402 payments with, no chain needed. Tests start it on a free port.
 *
 * A facilitator on 127.0.0.1 speaking x402 v2's facilitator protocol (GET /supported, POST /verify,
 * POST /settle) for the `exact` scheme with EIP-3009 authorizations: it checks the signature against
 * the token's EIP-712 domain as a chain would, the amount, payee, validity window and that the nonce
 * was not spent, and "settles" by spending the nonce. No chain is involved.
 */
export async function startFakeFacilitator (port = 0): Promise<FakeFacilitator> {
  const spent = new Set<string>()
  const pending: ServerResponse[] = []

  async function check ({ paymentPayload, paymentRequirements: required }: Body): Promise<{ isValid: boolean, invalidReason?: string, payer?: string }> {
    const { authorization, signature } = paymentPayload.payload
    if (authorization === undefined || signature === undefined) return { isValid: false, invalidReason: 'invalid_payload' }
    const payer = authorization.from
    const now = Math.floor(Date.now() / 1000)
    if (authorization.to.toLowerCase() !== required.payTo.toLowerCase()) return { isValid: false, invalidReason: 'invalid_exact_evm_payload_recipient_mismatch', payer }
    if (BigInt(authorization.value) < BigInt(required.amount)) return { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_value', payer }
    if (Number(authorization.validBefore) <= now || Number(authorization.validAfter) > now) {
      return { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_valid_before', payer }
    }
    if (spent.has(`${payer.toLowerCase()}:${authorization.nonce}`)) return { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_nonce_used', payer }
    const valid = await verifyTypedData({
      address: payer,
      domain: {
        name: String(required.extra.name),
        version: String(required.extra.version),
        chainId: Number(required.network.split(':')[1]),
        verifyingContract: required.asset as Address
      },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: authorization.from,
        to: authorization.to,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce
      },
      signature
    })
    return valid ? { isValid: true, payer } : { isValid: false, invalidReason: 'invalid_exact_evm_payload_signature', payer }
  }

  const facilitator: FakeFacilitator = {
    url: '',
    settled: [],
    verifies: 0,
    settleMode: 'ok',
    close: async () => {
      for (const response of pending) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }

  const server = createServer((request, response) => {
    (async () => {
      if (request.method === 'GET' && request.url === '/supported') {
        return send(response, 200, { kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} })
      }
      if (request.method === 'POST' && request.url === '/verify') {
        facilitator.verifies++
        return send(response, 200, await check(await readJson(request)))
      }
      if (request.method === 'POST' && request.url === '/settle') {
        const body = await readJson(request)
        if (facilitator.settleMode === 'hang') {
          pending.push(response)
          return
        }
        const verdict = await check(body)
        if (!verdict.isValid || facilitator.settleMode === 'refuse') {
          return send(response, 200, { success: false, errorReason: verdict.invalidReason ?? 'transaction_failed', transaction: '', network: NETWORK, payer: verdict.payer })
        }
        const authorization = body.paymentPayload.payload.authorization as Authorization
        spent.add(`${authorization.from.toLowerCase()}:${authorization.nonce}`)
        const transaction = `0x${randomBytes(32).toString('hex')}`
        facilitator.settled.push({ payer: authorization.from, nonce: authorization.nonce, amount: body.paymentRequirements.amount, transaction })
        return send(response, 200, { success: true, transaction, network: NETWORK, payer: authorization.from })
      }
      send(response, 404, { error: 'not found' })
    })().catch((error: unknown) => send(response, 500, { error: String(error) }))
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  facilitator.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return facilitator
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const facilitator = await startFakeFacilitator(Number(process.env.PORT ?? 4020))
  console.log(`fake x402 facilitator (${NETWORK}, no chain) at ${facilitator.url}; pays to ${PAY_TO}`)
}
