import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { test } from 'tap'
import { startFakeBee } from '../../fake-bee.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { clients, listening } from './clients.js'

const env = { EGRESS_ALLOWLIST: '127.0.0.1' }

test('every client walks llms.txt and each active Bee\'s page across pages, and reads them as HTTP serves them', async (t) => {
  const { app, url } = await listening(t, { env })
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const publisher = await createPublisher(app)
  for (let i = 0; i < 50; i++) await publish(app, publisher.headers, beeBody(`shout-${String(i).padStart(2, '0')}`, fake.url))
  await publish(app, publisher.headers, beeBody('paused', fake.url))
  await app.inject({ method: 'PATCH', url: '/api/bees/paused', headers: publisher.headers, payload: { status: 'inactive' } })
  const active = (await app.inject('/api/bees?limit=100')).json<{ bees: Array<{ id: string }> }>().bees.map((bee) => bee.id)
  const http = (path: string) => fetch(new URL(path, url)).then(async (response) => await response.text())

  for (const [name, connect] of Object.entries(clients)) {
    await t.test(name, async (tt) => {
      const { client } = await connect(url)
      tt.teardown(() => client.close())
      const uris: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = await client.listResources(cursor === undefined ? {} : { cursor })
        uris.push(...page.resources.map((resource) => resource.uri))
        if (pages === 0) tt.same(page.resources[0], { uri: 'apiary://llms.txt', name: 'llms.txt', title: 'Apiary for language models', description: page.resources[0]?.description, mimeType: 'text/markdown' })
        cursor = page.nextCursor
        pages++
      } while (cursor !== undefined)
      // The 2.x client walks the pages itself when asked for the first.
      if (name.startsWith('v1')) tt.equal(pages, 2, 'paged')
      tt.same(uris, ['apiary://llms.txt', ...active.map((id) => `apiary://bees/${id}`)], 'llms.txt, then every active Bee once, in id order')
      tt.notOk(uris.includes('apiary://bees/paused'), 'an inactive Bee is not listed')

      const { resourceTemplates } = await client.listResourceTemplates()
      tt.match(resourceTemplates, [{ uriTemplate: 'apiary://bees/{id}', name: 'bee', mimeType: 'text/markdown' }])
      const llms = await client.readResource({ uri: 'apiary://llms.txt' })
      tt.same(llms.contents, [{ uri: 'apiary://llms.txt', mimeType: 'text/markdown', text: await http('/llms.txt') }], 'llms.txt as GET /llms.txt gives it')
      const page = await client.readResource({ uri: 'apiary://bees/weather-sensor' })
      tt.same(page.contents, [{ uri: 'apiary://bees/weather-sensor', mimeType: 'text/markdown', text: await http('/api/bees/weather-sensor.md') }], 'a Bee\'s page as HTTP gives it')
      const paused = await client.readResource({ uri: 'apiary://bees/paused' })
      tt.match(paused.contents[0]?.text, /This Bee is inactive/, 'an inactive Bee\'s page says so, as over HTTP')
      await tt.rejects(client.readResource({ uri: 'apiary://bees/no-such-bee' }), { code: -32602, message: /No resource has the URI "apiary:\/\/bees\/no-such-bee"/ }, 'an unknown resource')
      await tt.rejects(client.listResources({ cursor: 'garbage!!' }), { code: -32602 }, 'a cursor that is not one')
    })
  }
})

test('on 2026-07-28 a listening client hears that the resource list changed', async (t) => {
  const { app, url } = await listening(t, { env })
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const publisher = await createPublisher(app)
  const client = new Client({ name: 'apiary-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.teardown(() => client.close())
  t.same(client.getServerCapabilities()?.resources, { listChanged: true })
  let heard = () => {}
  const announced = new Promise<void>((resolve) => { heard = resolve })
  client.setNotificationHandler('notifications/resources/list_changed', () => heard())
  const subscription = await client.listen({ resourcesListChanged: true })
  t.same(subscription.honoredFilter, { resourcesListChanged: true })
  await publish(app, publisher.headers, beeBody('announced', fake.url))
  await announced
  t.ok((await client.listResources()).resources.some((resource) => resource.uri === 'apiary://bees/announced'), 'and finds the new page')
  await subscription.close()
})
