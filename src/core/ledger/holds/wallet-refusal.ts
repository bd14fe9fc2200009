import type { HoldOutcome } from './hold-repository.js'

/** Why a wallet (as read after its conditional debit matched nothing) did not pay: the second look only a refused hold pays for. */
export function walletRefusal (wallet: { balance: number, currency: string, frozen: number } | undefined, currency: string): HoldOutcome {
  if (wallet === undefined) return { ok: false, reason: 'WALLET_NOT_FOUND' }
  if (Number(wallet.frozen) === 1) return { ok: false, reason: 'WALLET_FROZEN' }
  if (wallet.currency !== currency) return { ok: false, reason: 'CURRENCY_MISMATCH' }
  return { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: Number(wallet.balance), currency: wallet.currency }
}
