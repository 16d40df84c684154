// The OpenAPI document as published at /swagger/json: what @elysiajs/swagger
// generates from the routes' TypeBox schemas, made into a valid OpenAPI 3.1
// document. The generator lists every response as JSON, multipart and text,
// without descriptions, leaks TypeBox's `error` option into the schemas, and
// turns response integers into string-or-integer; 3.1 (JSON Schema 2020-12)
// keeps `const`, `examples` and `type: "null"` as they are.
type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Obj = { [k: string]: Json }

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v)

/** Words for each status the bridge answers, for responses that carry none. */
const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '101': 'Switching Protocols: the WebSocket is open',
  '400': 'Bad request: a missing or malformed parameter or body',
  '401': 'Unauthorized: no token, or not a token of this bridge',
  '403': 'Forbidden',
  '404': 'Not found',
  '409': 'Conflict: the agent moved on',
  '413': 'Body too large',
  '422': 'Not possible for this agent kind',
  '429': 'Too many attempts',
  '500': 'Internal error',
  '502': 'herdr failed: its own message follows',
}

/** Keys TypeBox and Elysia put on schemas that are not JSON Schema. */
const NOT_SCHEMA = new Set(['error', 'errorMessage', '$id', 'decode', 'encode'])

/** A response integer that Elysia widened to `string (format integer) | integer`: the integer. */
function unwidened(s: Obj): Obj | undefined {
  const any = s.anyOf
  if (!Array.isArray(any) || any.length !== 2) return undefined
  const [a, b] = any
  if (isObj(a) && isObj(b) && a.type === 'string' && (a.format === 'integer' || a.format === 'numeric') && (b.type === 'integer' || b.type === 'number'))
    return { ...b, ...(s.description !== undefined ? { description: s.description } : {}) }
  return undefined
}

/** A JSON Schema with the generator's artefacts removed. */
export function cleanSchema(v: Json): Json {
  if (Array.isArray(v)) return v.map(cleanSchema)
  if (!isObj(v)) return v
  const narrowed = unwidened(v)
  if (narrowed) return cleanSchema(narrowed)
  const out: Obj = {}
  for (const [k, x] of Object.entries(v)) {
    if (NOT_SCHEMA.has(k)) continue
    // `properties` maps names to schemas: a property may be called `error`
    out[k] = k === 'properties' && isObj(x) ? Object.fromEntries(Object.entries(x).map(([n, s]) => [n, cleanSchema(s)])) : cleanSchema(x)
  }
  return out
}

const RESPONSE_KEYS = new Set(['description', 'headers', 'content', 'links'])

function cleanResponse(status: string, r: Obj): Obj {
  const content = isObj(r.content) ? r.content : {}
  const first = Object.values(content).find((c) => isObj(c) && isObj(c.schema)) as Obj | undefined
  const schema = first ? cleanSchema(first.schema) : undefined
  // only a Response Object's own fields (the generator spreads array schemas into it)
  const out: Obj = Object.fromEntries(Object.entries(r).filter(([k]) => RESPONSE_KEYS.has(k) || k.startsWith('x-')))
  const error = !status.startsWith('2')
  const text = isObj(schema) && schema.type === 'string'
  out.description =
    typeof r.description === 'string' && r.description
      ? r.description
      : (STATUS_TEXT[status] ?? `Status ${status}`) + (error && text ? ' (plain-text body)' : '')
  if (schema !== undefined) out.content = { [text ? 'text/plain' : 'application/json']: { schema } }
  else delete out.content
  return out
}

function cleanOperation(op: Obj): Obj {
  const out: Obj = { ...op }
  if (Array.isArray(op.parameters))
    out.parameters = op.parameters.map((p) => (isObj(p) && p.schema !== undefined ? { ...p, schema: cleanSchema(p.schema) } : p))
  if (isObj(op.requestBody) && isObj(op.requestBody.content)) {
    const json = op.requestBody.content['application/json']
    if (isObj(json))
      out.requestBody = { ...op.requestBody, required: true, content: { 'application/json': { ...json, schema: cleanSchema(json.schema ?? {}) } } }
  }
  if (isObj(op.responses)) out.responses = Object.fromEntries(Object.entries(op.responses).map(([s, r]) => [s, isObj(r) ? cleanResponse(s, r) : r]))
  return out
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** The generated document → a valid OpenAPI 3.1 document. Pure. */
export function cleanOpenApi(raw: unknown): Obj {
  const doc = JSON.parse(JSON.stringify(raw)) as Obj
  const paths: Obj = {}
  for (const [path, item] of Object.entries(isObj(doc.paths) ? doc.paths : {})) {
    if (!isObj(item)) continue
    paths[path] = Object.fromEntries(Object.entries(item).map(([m, op]) => [m, METHODS.has(m) && isObj(op) ? cleanOperation(op) : op]))
  }
  const components = isObj(doc.components) ? { ...doc.components } : {}
  if (isObj(components.schemas)) components.schemas = cleanSchema(components.schemas)
  return { ...doc, openapi: '3.1.0', paths, components }
}
