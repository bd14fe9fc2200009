import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Delivery { headers: IncomingHttpHeaders, body: string }

export interface WebhookReceiver {
  url: string
  deliveries: Delivery[]
  /** The statuses the next deliveries are answered with, in order; 204 once they run out. */
  statuses: number[]
  close (): Promise<void>
}

/** A webhook receiver on 127.0.0.1: keeps every delivery's headers and raw body, and answers as told. */
export async function startWebhookReceiver (): Promise<WebhookReceiver> {
  const receiver: Omit<WebhookReceiver, 'url' | 'close'> = { deliveries: [], statuses: [] }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      receiver.deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') })
      response.writeHead(receiver.statuses.shift() ?? 204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/runs`,
    close: async () => { await new Promise((resolve) => server.close(resolve)) }
  })
}
