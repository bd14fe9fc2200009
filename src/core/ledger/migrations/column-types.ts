import type { Dialect } from '../dialect.js'

// The one place the dialects differ in DDL: how an auto-numbered 64-bit key and an amount of micro-units are declared.
export const serialIdType = (dialect: Dialect) => dialect === 'postgres' ? 'bigserial' : 'integer'
export const moneyType = (dialect: Dialect) => dialect === 'postgres' ? 'bigint' : 'integer'
