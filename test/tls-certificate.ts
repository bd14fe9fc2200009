import { generate } from 'selfsigned'

/** A self-signed certificate (ECDSA P-256, SHA-256) for a TLS server on 127.0.0.1, valid for a day. */
export async function selfSignedCertificate (): Promise<{ cert: string, key: string }> {
  const notBeforeDate = new Date(Date.now() - 60_000)
  const { cert, private: key } = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]
  })
  return { cert, key }
}
