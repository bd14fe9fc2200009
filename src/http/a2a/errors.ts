import type { Issue } from '../../core/errors.js'
import type { ErrorBody } from '../../core/schemas.js'

/** JSON-RPC error codes: the standard ones and A2A's own (A2A §5.4, §9.5). */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  versionNotSupported: -32009
} as const

/** One entry of `error.data`: A2A asks for an array of ProtoJSON `Any` objects, each naming its type. */
export type ErrorDetail = { '@type': string } & Record<string, unknown>

export interface RpcError {
  code: number
  message: string
  data?: ErrorDetail[]
}

const A2A_DOMAIN = 'a2a-protocol.org'
const APIARY_DOMAIN = 'apiary'

function errorInfo (reason: string, domain: string, metadata?: Record<string, string>): ErrorDetail {
  return { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain, ...(metadata === undefined ? {} : { metadata }) }
}

/** An error A2A itself defines, its reason in an ErrorInfo as the spec's examples give it. */
export function protocolError (code: number, reason: string, message: string, metadata?: Record<string, string>): RpcError {
  return { code, message, data: [errorInfo(reason, A2A_DOMAIN, metadata)] }
}

/** Invalid params naming each refused field, as the google.rpc.BadRequest the spec suggests. */
export function invalidParams (message: string, violations: readonly Issue[]): RpcError {
  return {
    code: RpcCode.invalidParams,
    message,
    data: [{
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: violations.map(({ field, reason }) => ({ field, description: reason }))
    }]
  }
}

/**
 * An Apiary refusal as JSON-RPC error data: our code as the ErrorInfo reason, and the whole error body
 * (the one HTTP sends) as a Struct, so a client finds the same `{error, code, message, ...}` as anywhere else.
 */
export function apiaryDetails (body: ErrorBody & Record<string, unknown>): ErrorDetail[] {
  return [
    errorInfo(body.code, APIARY_DOMAIN),
    { '@type': 'type.googleapis.com/google.protobuf.Struct', value: body }
  ]
}
