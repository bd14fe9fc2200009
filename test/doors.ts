import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { balanceOf, createWallet, execute } from './helper.js'

/**
 * Checks shared by the doors to the execution pipeline (MCP, A2A): a door passes on what HTTP answers the
 * same call, and a paid call costs the same whichever door it came through. Each door says how it sends
 * the paid call (`DoorCall`); these run it against the same call over HTTP.
 */

export const PAID_BEE = 'sentiment-analyzer'
export const PAID_INPUT = { text: 'What a lovely day.' }

/** Where a door call carries a wallet token or an Idempotency-Key: the HTTP header, or the door's own metadata. */
export interface Carried { header?: string, meta?: string }

/** What a door answered the paid call, in HTTP's terms (a refusal is neither replayed nor charged). */
export interface DoorAnswer {
  replayed: boolean
  charged: boolean
  /** The fields of HTTP's answer (the Honey, or the error body) the door's answer holds. */
  body: Record<string, unknown>
}

export interface PaidCall { wallet?: Carried, key?: Carried }

/** Calls PAID_BEE on PAID_INPUT over the door with this wallet token and Idempotency-Key. */
export type DoorCall = (call: PaidCall) => Promise<DoorAnswer>

/** A paid call's HTTP headers, and its metadata under the keys both MCP `_meta` and A2A metadata use. */
export function carried ({ wallet, key }: PaidCall): { headers: Record<string, string>, meta: Record<string, string> } {
  const headers: Record<string, string> = {}
  const meta: Record<string, string> = {}
  if (wallet?.header !== undefined) headers['X-Registry-Wallet-Token'] = wallet.header
  if (key?.header !== undefined) headers['Idempotency-Key'] = key.header
  if (wallet?.meta !== undefined) meta['ai.apiary/walletToken'] = wallet.meta
  if (key?.meta !== undefined) meta['ai.apiary/idempotencyKey'] = key.meta
  return { headers, meta }
}

/**
 * A paid call without a wallet token, with an unknown one (in the header) and with an empty wallet (in the
 * door's metadata): each time the door passes on the 402 body HTTP gives (fields a door adds aside), and
 * nothing is charged.
 */
export async function checkPaymentRequired (t: Test, app: FastifyInstance, door: string, call: DoorCall): Promise<void> {
  const empty = await createWallet(app, 0)
  const http = await execute(app, PAID_BEE, PAID_INPUT)
  t.equal(http.statusCode, 402)
  t.has((await call({})).body, http.json(), `${door}: the HTTP 402 body`)
  const unknown = await execute(app, PAID_BEE, PAID_INPUT, 'no-such-token')
  t.has((await call({ wallet: { header: 'no-such-token' } })).body, { ...unknown.json(), code: 'WALLET_NOT_FOUND' }, `${door}: an unknown wallet`)
  const poor = await execute(app, PAID_BEE, PAID_INPUT, empty.token)
  t.has((await call({ wallet: { meta: empty.token } })).body, { ...poor.json(), code: 'INSUFFICIENT_FUNDS' }, `${door}: the wallet in metadata was read`)
  t.equal(await balanceOf(app, empty.id), 0, `${door}: nothing charged`)
}

/**
 * The same paid call first over HTTP with an Idempotency-Key, then over the door with the same key: a replay,
 * the header winning over a key in metadata; then a first call over the door, its key in metadata, which
 * HTTP replays. Two keys, two charges, whatever the door.
 */
export async function checkIdempotencyAcrossDoors (t: Test, app: FastifyInstance, door: string, call: DoorCall): Promise<void> {
  const wallet = await createWallet(app, 1)
  const paying = { header: wallet.token }
  const http = await execute(app, PAID_BEE, PAID_INPUT, wallet.token, { 'idempotency-key': 'order-7' })
  t.equal(http.statusCode, 200)
  const replay = await call({ wallet: paying, key: { header: 'order-7' } })
  t.equal(replay.replayed, true, `the ${door} retry replays the HTTP answer`)
  t.equal(replay.charged, false, 'a replay charges nothing')
  t.has(http.json(), replay.body, 'the same Honey')
  const headerFirst = await call({ wallet: paying, key: { header: 'order-7', meta: 'order-8' } })
  t.equal(headerFirst.replayed, true, 'the header wins over metadata: still order-7')

  const first = await call({ wallet: paying, key: { meta: 'order-8' } })
  t.same([first.replayed, first.charged], [false, true], 'a new key: a new, charged call')
  const again = await execute(app, PAID_BEE, PAID_INPUT, wallet.token, { 'idempotency-key': 'order-8' })
  t.equal(again.headers['idempotent-replayed'], 'true', `the HTTP retry replays the ${door} answer`)
  t.equal(await balanceOf(app, wallet.id), 0.998, 'two keys, two charges, whatever the door')
}
