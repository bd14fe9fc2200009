/**
 * Pays for one call with x402, as an agent would: `npx tsx examples/x402/pay.ts URL 'JSON body'`.
 * @x402/fetch sends the call, reads the 402's PAYMENT-REQUIRED offer, signs an EIP-3009 authorization
 * with a key made here, and sends the call again with PAYMENT-SIGNATURE.
 */
import { x402Client as X402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const [url, body = '{}'] = process.argv.slice(2)
if (url === undefined) throw new Error('usage: npx tsx examples/x402/pay.ts URL [JSON body]')
const account = privateKeyToAccount(generatePrivateKey())
const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new X402Client(), { signer: account }))
const response = await pay(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
console.log(`payer ${account.address}: ${response.status}`)
console.log(await response.text())
const settlement = response.headers.get('payment-response')
if (settlement !== null) console.log('PAYMENT-RESPONSE', JSON.stringify(decodePaymentResponseHeader(settlement)))
