import { generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { isIPv4 } from 'node:net'

/** One DER element: tag, definite length, content. */
function der (tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content)
  const length = body.length < 0x80 ? [body.length] : body.length < 0x100 ? [0x81, body.length] : [0x82, body.length >> 8, body.length & 0xff]
  return Buffer.concat([Buffer.from([tag, ...length]), body])
}

function oid (dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number)
  const bytes = [first * 40 + second]
  for (const arc of rest) {
    const groups = [arc & 0x7f]
    for (let value = arc >> 7; value > 0; value >>= 7) groups.unshift((value & 0x7f) | 0x80)
    bytes.push(...groups)
  }
  return der(0x06, Buffer.from(bytes))
}

const utcTime = (date: Date) => der(0x17, Buffer.from(date.toISOString().replace(/^\d\d|[-:T]|\.\d+/g, '')))

/**
 * A self-signed certificate (ECDSA P-256, SHA-256) for a TLS server on an IPv4 address, valid for a day:
 * node's crypto signs, this writes the X.509 structure (RFC 5280) around it, so a test needs no
 * certificate library and no openssl binary.
 */
export function selfSignedCertificate (address = '127.0.0.1'): { cert: string, key: string } {
  if (!isIPv4(address)) throw new Error(`not an IPv4 address: ${address}`)
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const ecdsaWithSha256 = der(0x30, oid('1.2.840.10045.4.3.2'))
  const name = der(0x30, der(0x31, der(0x30, oid('2.5.4.3'), der(0x0c, Buffer.from(address)))))
  const now = Date.now()
  const subjectAltName = der(0x30, oid('2.5.29.17'), der(0x04, der(0x30, der(0x87, Buffer.from(address.split('.').map(Number))))))
  const tbs = der(0x30,
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.concat([Buffer.from([1]), randomBytes(8)])),
    ecdsaWithSha256,
    name,
    der(0x30, utcTime(new Date(now - 60_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, der(0x30, subjectAltName)))
  const certificate = der(0x30, tbs, ecdsaWithSha256, der(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)))
  const pem = certificate.toString('base64').replace(/.{1,64}/g, '$&\n')
  return { cert: `-----BEGIN CERTIFICATE-----\n${pem}-----END CERTIFICATE-----\n`, key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }
}
