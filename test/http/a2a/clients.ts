import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { Role, type Message } from '@a2a-js/sdk'
import { ClientFactory, type Client } from '@a2a-js/sdk/client'
import type { FastifyInstance } from 'fastify'
import { build, type BuildOptions } from '../../helper.js'

interface Teardown { teardown (fn: () => unknown): void }

/** The app listening on 127.0.0.1 (the A2A client speaks real HTTP), and its base URL. */
export async function listening (t: Teardown, options: BuildOptions = {}): Promise<{ app: FastifyInstance, base: string }> {
  const app = await build(t, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }
}

/** The SDK's client, made the way its README shows: from the agent card at the base URL. */
export async function connect (base: string): Promise<Client> {
  return await new ClientFactory().createFromUrl(base)
}

/** A user message whose one data part asks `beeId` to run on `input`. */
export function beeMessage (beeId: string, input: unknown, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'data', value: { beeId, input } }, metadata: undefined, filename: '', mediaType: 'application/json' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra
  }
}

/** Sends one message with the given headers and metadata, and returns what the SDK made of the answer. */
export async function send (client: Client, message: Message, headers: Record<string, string> = {}, metadata?: Record<string, unknown>) {
  return await client.sendMessage({ tenant: '', message, configuration: undefined, metadata }, { serviceParameters: headers })
}
