/** The earnings account of the service's operator: built-in Bees' sales and the platform fee on published ones. */
export const OPERATOR_ACCOUNT = 'operator'

/** Largest PLATFORM_FEE_BPS: 100 % of the price. */
export const MAX_FEE_BPS = 10_000

/**
 * The platform fee on a sale of `micros`: floor(micros × bps / 10000), so the owner's share
 * (micros − fee) and the fee add up to the price exactly. Computed as q × bps + floor(r × bps / 10000)
 * (micros = q × 10000 + r), which never leaves the integers JavaScript and a 64-bit column hold exactly,
 * however large the price; the PostgreSQL capture runs the same formula (FEE_SQL).
 */
export function feeOf (micros: number, bps: number): number {
  return Math.floor(micros / MAX_FEE_BPS) * bps + Math.floor((micros % MAX_FEE_BPS) * bps / MAX_FEE_BPS)
}

/** feeOf in SQL, over integer columns (integer division truncates, which is floor for these non-negative values). */
export const feeSql = (micros: string, bps: string) => `((${micros}) / ${MAX_FEE_BPS} * ${bps} + (${micros}) % ${MAX_FEE_BPS} * ${bps} / ${MAX_FEE_BPS})`

export interface SaleRow { account: string, kind: 'sale' | 'x402' | 'fee', amount: number, fee: number }

/**
 * The earnings rows of one sale of `micros` to `payee`: its share (net of the fee, which it records)
 * and, on a published Bee's sale, the fee to the operator. Together exactly `micros`.
 */
export function saleRows (payee: string, micros: number, bps: number, kind: 'sale' | 'x402'): SaleRow[] {
  const fee = payee === OPERATOR_ACCOUNT ? 0 : feeOf(micros, bps)
  const share: SaleRow = { account: payee, kind, amount: micros - fee, fee }
  return fee === 0 ? [share] : [share, { account: OPERATOR_ACCOUNT, kind: 'fee', amount: fee, fee: 0 }]
}

/** Who earns a Bee's sales: its publisher, or the operator for a built-in Bee (no owner). */
export const payeeOf = (ownerId: string | null): string => ownerId ?? OPERATOR_ACCOUNT
