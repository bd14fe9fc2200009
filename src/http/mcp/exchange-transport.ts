import type { JSONRPCMessage, JSONRPCRequest, JSONRPCResponse, Transport } from '@modelcontextprotocol/server'

/**
 * An MCP transport for one request the HTTP layer has already read and parsed: it hands the message to
 * the server and resolves with the server's response as an object, for the route to send. No web
 * Request or Response is built. What the server sends before its response (a progress or log
 * notification) is dropped, as the SDK's Streamable HTTP transport drops it when it answers in JSON.
 */
export class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  #answer: ((response: JSONRPCResponse) => void) | undefined

  async start (): Promise<void> {}

  async close (): Promise<void> {
    this.onclose?.()
  }

  async send (message: JSONRPCMessage): Promise<void> {
    // In JSON-RPC only a response has no method.
    if (!('method' in message)) this.#answer?.(message)
  }

  /** The server's response to the request (its handler's result, or a JSON-RPC error). */
  exchange (request: JSONRPCRequest): Promise<JSONRPCResponse> {
    return new Promise((resolve) => {
      this.#answer = resolve
      this.onmessage?.(request)
    })
  }
}
