/** A JSON value, as a schema is read from a request body or the database. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A published schema the registry will not take; its message says where and why, for the publisher. */
export class SchemaRefused extends Error {}
