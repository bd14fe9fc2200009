import { once } from 'node:events'
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  /** Where the proxy listens: 127.0.0.1 on this port forwards to the target. */
  port: number
  /** The dependency goes away: open connections are cut and new ones refused, as a stopped server's are. */
  cut (): Promise<void>
  /** The dependency is back: connections are accepted and forwarded again, on the same port. */
  restore (): Promise<void>
  close (): Promise<void>
}

/**
 * A TCP forwarder to a service of this machine (PostgreSQL, Redis), for tests that take the service away from one
 * application without touching the service itself, which other tests are using.
 */
export async function startTcpProxy (target: { host: string, port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server
  const listen = async (port: number) => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream).pipe(client)
    })
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    return (server.address() as { port: number }).port
  }
  const port = await listen(0)
  const stop = async () => {
    const closed = once(server, 'close')
    server.close()
    for (const socket of sockets) socket.destroy()
    await closed
  }
  return {
    port,
    cut: stop,
    restore: async () => { await listen(port) },
    close: async () => { if (server.listening) await stop() }
  }
}
