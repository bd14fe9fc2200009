// Receives a run's completion webhook (docs/runs.md) and checks it is signed by Apiary, with the standardwebhooks
// package. Start a run with Callback-Url: http://127.0.0.1:8081/runs, then paste the 202's callbackSecret:
// CALLBACK_SECRET=whsec_… node examples/run-webhook.mjs (a delivery that came before is retried). One run here: a
// real receiver keeps each run's secret by its id (the 202's id, the body's data.id).
import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

const port = Number(process.env.PORT ?? 8081)
const webhook = new Webhook(process.env.CALLBACK_SECRET ?? '')

createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => { body += chunk })
  request.on('end', () => {
    let event
    try {
      // Over the raw body: parsed and written again, the bytes (and the signature) would differ.
      event = webhook.verify(body, request.headers)
    } catch (error) {
      console.log(`refused: ${error.message}`)
      response.writeHead(401).end()
      return
    }
    // Any 2xx ends the deliveries; a retry of one already seen has the same webhook-id.
    response.writeHead(204).end()
    console.log(`${request.headers['webhook-id']}: ${event.type}`, JSON.stringify(event.data.honey?.result ?? event.data.error))
  })
}).listen(port, '127.0.0.1', () => console.log(`run webhooks on http://127.0.0.1:${port}/runs`))
