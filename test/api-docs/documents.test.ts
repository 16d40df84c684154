// The API documents: /swagger/json is a valid OpenAPI 3.1 document (strict
// validator), errors are declared text/plain with their statuses, every
// response has a description; /asyncapi.json is a valid AsyncAPI 3.0 document
// describing the WebSocket protocols with the frames the code sends.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Parser } from '@asyncapi/parser'
import Ajv from 'ajv'
import { PROTOCOL } from '../../src/transcript/frames'
import { startBridge, type Bridge } from '../support/harness'

let b: Bridge
let oas: any
let aapi: any
beforeAll(async () => {
  b = await startBridge()
  oas = await (await fetch(`${b.base}/swagger/json`)).json()
  aapi = await (await fetch(`${b.base}/asyncapi.json`)).json()
})
afterAll(() => b.stop())

function* walk(v: unknown, path = ''): Generator<[string, string, unknown]> {
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield* walk(v[i], `${path}/${i}`)
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      yield [path, k, x]
      yield* walk(x, `${path}/${k}`)
    }
}

describe('OpenAPI (/swagger/json)', () => {
  test('passes @apidevtools/swagger-parser as OpenAPI 3.1', async () => {
    expect(oas.openapi).toBe('3.1.0')
    await SwaggerParser.validate(structuredClone(oas))
  })

  test("every HTTP route is in it; the generator's own routes are not reachable", async () => {
    for (const p of ['/healthz', '/snapshot', '/agent-state', '/send', '/approve', '/agent-mode/cycle', '/pair', '/pair/code', '/devices', '/devices/{id}'])
      expect(Object.keys(oas.paths)).toContain(p)
    expect(Object.keys(oas.paths).filter((p) => p.startsWith('/swagger'))).toEqual([])
    for (const p of ['/swagger/generated.json', '/swagger/generated']) expect((await fetch(`${b.base}${p}`)).status).toBe(404)
  })

  test('errors are text/plain with their statuses, successes JSON, every response described', () => {
    let errors = 0
    for (const [path, item] of Object.entries<any>(oas.paths))
      for (const [method, op] of Object.entries<any>(item))
        for (const [status, r] of Object.entries<any>(op.responses)) {
          const where = `${method.toUpperCase()} ${path} ${status}`
          expect(typeof r.description === 'string' && r.description.length > 0 ? where : `${where}: no description`).toBe(where)
          const types = Object.keys(r.content ?? {})
          if (Number(status) >= 400) {
            errors++
            expect([where, types]).toEqual([where, ['text/plain']])
            expect(r.content['text/plain'].schema.type).toBe('string')
          } else expect([where, types]).toEqual([where, ['application/json']])
        }
    expect(errors).toBeGreaterThan(25)
    // the statuses the contracts list
    expect(Object.keys(oas.paths['/agent-state'].get.responses).sort()).toEqual(['200', '400', '401', '404', '502'])
    expect(Object.keys(oas.paths['/approve'].post.responses)).toContain('409')
  })

  test('no generator artefacts: no TypeBox `error`, no string-or-integer, no multipart', () => {
    const bad: string[] = []
    for (const [path, key, value] of walk(oas.paths)) {
      if (key === 'error' && !path.endsWith('/properties')) bad.push(`${path}/error`)
      if (key === 'multipart/form-data') bad.push(path)
      if (key === 'anyOf' && Array.isArray(value) && value.some((s: any) => s?.type === 'string' && s?.format === 'integer')) bad.push(path)
    }
    expect(bad).toEqual([])
    const option = oas.paths['/agent-state'].get.responses['200'].content['application/json'].schema.properties.blocked.properties.options.items
    expect(option.properties.index.type).toBe('integer')
  })

  test('the description links the AsyncAPI document', () => {
    expect(oas.info.description).toContain('[/asyncapi.json](/asyncapi.json)')
  })
})

describe('AsyncAPI (/asyncapi.json)', () => {
  test('is a valid AsyncAPI 3.0 document', async () => {
    expect(aapi.asyncapi).toBe('3.0.0')
    const { document, diagnostics } = await new Parser().parse(aapi)
    const errors = diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code}: ${d.message} at ${d.path.join('/')}`)
    expect(errors).toEqual([])
    expect(document).toBeDefined()
  })

  test('describes /agent-transcript, /attach and /events with every frame, and the host the client used', () => {
    expect(
      Object.values<any>(aapi.channels)
        .map((c) => c.address)
        .sort(),
    ).toEqual(['/agent-transcript', '/attach', '/events'])
    expect(Object.keys(aapi.channels.events.messages).sort()).toEqual(['hello', 'machine', 'pane', 'paneRemoved', 'visibility'])
    expect(aapi.operations.eventsReceive.messages).toEqual([{ $ref: '#/channels/events/messages/visibility' }])
    const names = (id: string) => Object.keys(aapi.channels[id].messages).sort()
    expect(names('agentTranscript')).toEqual([
      'backlogComplete',
      'entry',
      'hello',
      'loadNewer',
      'loadOlder',
      'newerPageComplete',
      'pageComplete',
      'sessionChanged',
      'subagents',
    ])
    expect(names('attach')).toEqual(['input', 'resize', 'screen'])
    expect(aapi.operations.agentTranscriptSend.action).toBe('send')
    expect(aapi.operations.agentTranscriptReceive.action).toBe('receive')
    expect(aapi.servers.bridge.host).toBe(new URL(b.base).host)
    // ?pane= or ?session=: neither is required on its own
    expect(aapi.channels.agentTranscript.bindings.ws.query.required ?? []).toEqual([])
    expect(Object.keys(aapi.channels.agentTranscript.bindings.ws.query.properties)).toEqual(expect.arrayContaining(['pane', 'session', 'around']))
  })

  test('the frame schemas accept real frames and refuse wrong ones', () => {
    const ajv = new Ajv({ strict: false })
    const check = (key: string, v: unknown) => ajv.validate(aapi.components.messages[key].payload, v)
    const hello = {
      type: 'hello',
      protocol: PROTOCOL,
      pane: 'w1:p1',
      agent_kind: 'claude',
      session_id: 's',
      backlog_count: 0,
      total: 0,
      has_more: false,
      oldest_loaded_seq: 0,
      has_older: false,
    }
    expect(check('agentTranscriptHello', hello)).toBe(true)
    expect(check('agentTranscriptHello', { ...hello, protocol: 4 })).toBe(false)
    expect(check('agentTranscriptLoadOlder', { type: 'load_older', before_seq: 876, limit: 150 })).toBe(true)
    expect(check('agentTranscriptLoadOlder', { type: 'load_older' })).toBe(false)
    expect(check('eventsVisibility', { type: 'visibility', visible: false })).toBe(true)
    expect(check('eventsVisibility', { type: 'visibility', visible: 'no' })).toBe(false)
  })
})
