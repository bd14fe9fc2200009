import type { Ajv, FormatDefinition } from 'ajv'
import addFormats from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import RE2 from 're2'

/**
 * The `format`s a schema may use, each checked in time linear in the input.
 *
 * A format runs against every caller's input before payment, so one that backtracks lets anyone stall
 * the event loop: ajv-formats' `url` regex took 1.8 s on "http://[" + 60,000 ":" (a `maxLength` does
 * not help: with allErrors Ajv checks the format anyway, and a quadratic check of many strings just
 * under a bound still adds up). So ajv-formats' regular expressions run here on RE2, which matches in
 * linear time, and where they need lookaheads RE2 lacks, the lookahead is a separate linear check.
 * The date and time checks are ajv-formats' own functions: one anchored regex with a single `\d+`,
 * which cannot backtrack more than once. Any other format is refused at publish (checkFormats).
 */

type Check = (value: string) => boolean

const re2 = (source: string, flags = ''): Check => {
  const regExp = new RE2(source, flags)
  return (value) => regExp.test(value)
}

/** ajv-formats' regex for `name`, on RE2. RE2 refuses the lookarounds it cannot run, at start-up. */
const fromAjvFormats = (name: 'email' | 'ipv4' | 'ipv6' | 'uuid' | 'uri-reference' | 'uri-template' | 'json-pointer' |
'json-pointer-uri-fragment' | 'relative-json-pointer'): Check => {
  const regExp = fullFormats[name] as RegExp
  return re2(regExp.source, regExp.flags)
}

/** JavaScript's `\S`: RE2's `\s` knows only ASCII spaces. */
const NON_SPACE = '[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]'

/** ajv-formats' `uri` (the jmrware RFC 3986 regex), which it keeps private; it has no lookaround. */
const URI = re2("^(?:[a-z][a-z0-9+\\-.]*:)(?:\\/?\\/(?:(?:[a-z0-9\\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\\d|[01]?\\d\\d?)\\.){3}(?:25[0-5]|2[0-4]\\d|[01]?\\d\\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\\.[a-z0-9\\-._~!$&'()*+,;=:]+)\\]|(?:(?:25[0-5]|2[0-4]\\d|[01]?\\d\\d?)\\.){3}(?:25[0-5]|2[0-4]\\d|[01]?\\d\\d?)|(?:[a-z0-9\\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\\d*)?(?:\\/(?:[a-z0-9\\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\\/(?:(?:[a-z0-9\\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\\/(?:[a-z0-9\\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\\/(?:[a-z0-9\\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\\?(?:[a-z0-9\\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$", 'i')
const uri: Check = (value) => /\/|:/.test(value) && URI(value)

/**
 * ajv-formats' `url` (dperini's regex) without its three lookaheads, which refuse a private IPv4 host
 * (10/8, 127/8, 169.254/16, 192.168/16, 172.16/12); that refusal is the second, linear, check.
 */
const URL_PREFIX = `^(?:https?|ftp):\\/\\/(?:${NON_SPACE}+(?::${NON_SPACE}*)?@)?`
const URL_SUFFIX = `(?::\\d{2,5})?(?:\\/${NON_SPACE}*)?$`
const PUBLIC_SHAPE = re2(`${URL_PREFIX}(?:(?:[1-9]\\d?|1\\d\\d|2[01]\\d|22[0-3])(?:\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])){2}(?:\\.(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4]))|(?:(?:[a-z0-9\\u{00a1}-\\u{ffff}]+-)*[a-z0-9\\u{00a1}-\\u{ffff}]+)(?:\\.(?:[a-z0-9\\u{00a1}-\\u{ffff}]+-)*[a-z0-9\\u{00a1}-\\u{ffff}]+)*(?:\\.(?:[a-z\\u{00a1}-\\u{ffff}]{2,})))${URL_SUFFIX}`, 'iu')
const PRIVATE_HOST = re2(`${URL_PREFIX}(?:(?:10|127)(?:\\.\\d{1,3}){3}|(?:169\\.254|192\\.168)(?:\\.\\d{1,3}){2}|172\\.(?:1[6-9]|2\\d|3[0-1])(?:\\.\\d{1,3}){2})${URL_SUFFIX}`, 'iu')
const url: Check = (value) => PUBLIC_SHAPE(value) && !PRIVATE_HOST(value)

/** ajv-formats' `hostname` with its length lookahead `(?=.{1,253}\.?$)` as a length check. */
const HOSTNAME = re2('^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\\.?$', 'i')
const hostname: Check = (value) => value.length - (value.endsWith('.') ? 1 : 0) <= 253 && HOSTNAME(value)

/** ajv-formats' `duration` with its lookaheads (not "P" alone; a digit after "T") as plain checks. */
const DURATION = re2('^P(?:(\\d+Y)?(\\d+M)?(\\d+D)?(T(\\d+H)?(\\d+M)?(\\d+S)?)?|(\\d+W)?)$')
const duration: Check = (value) => value !== 'P' && DURATION(value) && (!value.includes('T') || /T\d/.test(value))

/**
 * OpenAPI's base64 `byte`. ajv-formats tests it with the `m` flag, so any one line that is base64 (an
 * empty line is) passes the whole string; here the whole string must be base64.
 */
const byte = re2('^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$')

const string = (validate: Check): FormatDefinition<string> => ({ type: 'string', validate })
const ajvFormat = (name: 'date' | 'time' | 'date-time' | 'iso-time' | 'iso-date-time' | 'int32' | 'int64' | 'float' | 'double') =>
  fullFormats[name] as FormatDefinition<string> | FormatDefinition<number>

export const SAFE_FORMATS: Record<string, FormatDefinition<string> | FormatDefinition<number> | true> = {
  date: ajvFormat('date'),
  time: ajvFormat('time'),
  'date-time': ajvFormat('date-time'),
  'iso-time': ajvFormat('iso-time'),
  'iso-date-time': ajvFormat('iso-date-time'),
  duration: string(duration),
  uri: string(uri),
  'uri-reference': string(fromAjvFormats('uri-reference')),
  'uri-template': string(fromAjvFormats('uri-template')),
  url: string(url),
  email: string(fromAjvFormats('email')),
  hostname: string(hostname),
  ipv4: string(fromAjvFormats('ipv4')),
  ipv6: string(fromAjvFormats('ipv6')),
  uuid: string(fromAjvFormats('uuid')),
  'json-pointer': string(fromAjvFormats('json-pointer')),
  'json-pointer-uri-fragment': string(fromAjvFormats('json-pointer-uri-fragment')),
  'relative-json-pointer': string(fromAjvFormats('relative-json-pointer')),
  byte: string(byte),
  int32: ajvFormat('int32'),
  int64: ajvFormat('int64'),
  float: ajvFormat('float'),
  double: ajvFormat('double'),
  // Annotations for UIs: they check nothing.
  password: true,
  binary: true
}

export const SAFE_FORMAT_NAMES = Object.keys(SAFE_FORMATS)

/** Adds the safe formats to an Ajv, with ajv-formats' formatMinimum/formatMaximum keywords. */
export function addSafeFormats (ajv: Ajv): Ajv {
  addFormats.default(ajv, { formats: [], keywords: true })
  for (const [name, format] of Object.entries(SAFE_FORMATS)) ajv.addFormat(name, format)
  return ajv
}
