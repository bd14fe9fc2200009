/**
 * PostgreSQL's LISTEN on `channel`, on a connection of its own (pg's Client, outside the pool): each notification's
 * payload to `onPayload`, the connection's failure to `onError`. Resolves to what stops listening.
 */
export async function listenOn (connectionString: string, channel: string, applicationName: string,
  onPayload: (payload: string | undefined) => void, onError: (error: Error) => void): Promise<() => Promise<void>> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString, application_name: applicationName })
  client.on('error', onError)
  client.on('notification', ({ payload }) => { onPayload(payload) })
  try {
    await client.connect()
    await client.query(`LISTEN ${client.escapeIdentifier(channel)}`)
  } catch (error) {
    // Half open (connected, not listening) is still a connection: close it, or it outlives the failure.
    await client.end().catch(() => {})
    throw error
  }
  return async () => { await client.end() }
}
