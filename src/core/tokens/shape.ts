/**
 * A verification token is a compact JWS (three base64url parts, the first a JSON header: `eyJ`); a
 * wallet key is `awt_` and base64url, never with dots. So the wallet header tells the two apart by shape.
 */
const COMPACT_JWS = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

export const isVerificationToken = (credential: string): boolean => COMPACT_JWS.test(credential)
