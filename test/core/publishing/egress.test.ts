import { once } from 'node:events'
import { createServer } from 'node:net'
import { test } from 'tap'
import * as undici from 'undici'
import { EgressPolicy, guardedConnector, isForbiddenAddress } from '../../../src/core/publishing/egress.js'

test('forbidden address ranges', async (t) => {
  for (const address of ['127.0.0.1', '127.8.8.8', '10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '::1', '::', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1']) {
    t.ok(isForbiddenAddress(address), address)
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1']) {
    t.notOk(isForbiddenAddress(address), address)
  }
})

test('IPv6 addresses that embed an IPv4 one are checked as that IPv4 address', async (t) => {
  // IPv4-compatible (::/96, deprecated; the URL parser writes ::127.0.0.1 as ::7f00:1) and IPv4-mapped forms.
  for (const address of ['::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '::169.254.169.254', '0:0:0:0:0:0:a00:1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::0.0.0.2']) {
    t.ok(isForbiddenAddress(address), address)
  }
  for (const address of ['::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '2002:7f00:1::', '2002:a9fe:a9fe::1', '64:ff9b:1::a9fe:a9fe', '2001:0:4136:e378::1', '100::1', 'fec0::1']) {
    t.ok(isForbiddenAddress(address), `${address}: a transition, discard or old site-local range`)
  }
  t.notOk(isForbiddenAddress('2a00:1450:4001:80b::200e'), 'ordinary global IPv6 is allowed')
  t.notOk(isForbiddenAddress('::808:808'), 'a public IPv4 address embedded is as allowed as the address itself')
  t.notOk(isForbiddenAddress('1::7f00:1'), 'only an all-zero prefix embeds IPv4')

  const strict = new EgressPolicy([])
  t.notOk(strict.allows('bees.example.com', '::7f00:1'), 'at connect time, as at publish time')
  for (const endpoint of ['https://[::127.0.0.1]/x', 'https://[::169.254.169.254]/x', 'https://[::a00:1]/x']) {
    t.match(await strict.check(endpoint), /is loopback, private, link-local or reserved/, endpoint)
  }
  const local = new EgressPolicy(['127.0.0.1'])
  t.ok(local.allowsHost('[::7f00:1]'), 'the allow-list applies to the embedded address, as for ::ffff: forms')
  t.equal(await local.check('http://[::127.0.0.1]:8080/x'), null)
})

test('the allow-list admits hosts, addresses and ranges', async (t) => {
  const policy = new EgressPolicy(['bees.internal', '10.20.0.0/16', '127.0.0.1'])
  t.ok(policy.allows('bees.internal', '10.9.9.9'), 'by host name')
  t.ok(policy.allows('other.internal', '10.20.3.4'), 'by range')
  t.ok(policy.allows('127.0.0.1', '127.0.0.1'), 'by address')
  t.notOk(policy.allows('other.internal', '10.21.0.1'))
  t.notOk(policy.allows('evil.example', '169.254.169.254'))
})

test('the guarded DNS lookup refuses names that resolve to forbidden addresses', async (t) => {
  const strict = new EgressPolicy([])
  const lookUp = (policy: EgressPolicy, host: string) => new Promise<string>((resolve, reject) => {
    policy.lookup(host, {}, (error, address) => error === null ? resolve(String(address)) : reject(error))
  })
  await t.rejects(lookUp(strict, 'localhost'), { code: 'EGRESS_FORBIDDEN' })
  t.match(await lookUp(new EgressPolicy(['localhost']), 'localhost'), /^(127\.0\.0\.1|::1)$/)
  t.equal(await strict.check('https://localhost/x'), 'endpoint host localhost resolves to 127.0.0.1, which is loopback, private, link-local or reserved')
})

test('the guarded connector never dials a forbidden IP literal, and dials an allowed one', async (t) => {
  let dialled = 0
  const server = createServer((socket) => {
    dialled++
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok')
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
  const through = (policy: EgressPolicy) => ({ dispatcher: new undici.Agent({ connect: guardedConnector(undici, policy, 1000) }) })
  await t.rejects(undici.fetch(url, through(new EgressPolicy([]))), { cause: { code: 'EGRESS_FORBIDDEN' } })
  t.equal(dialled, 0, 'refused before a connection was made')
  t.equal(await (await undici.fetch(url, through(new EgressPolicy(['127.0.0.1'])))).text(), 'ok', 'on the allow-list it is reached')
  t.equal(dialled, 1)
})
