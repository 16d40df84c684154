// Typed text and request bodies follow one set of rules (issue 37 B, item 7):
// /agent-start's prompt is typed text like /send's (control characters refused,
// the same rule), a workspace label the bridge derives from a directory's name
// is cut to printable characters, and a /pair/code body that is not a JSON
// object, or scopes that are not known scope names, is 400: never a code with the
// default scopes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { SCOPES } from '../../src/auth/scopes'
import { workspaceLabel } from '../../src/projects/start'
import { ADMIN, homesIn, startBridge, tempDir, type Bridge } from '../support/harness'

let b: Bridge
let home: string

beforeAll(async () => {
  home = tempDir('gothalo-input-home-')
  mkdirSync(join(home, 'proj'))
  b = await startBridge({
    homes: homesIn(home),
    herdrSocket: true,
    state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ ' }] },
    deps: { projectRoots: [home], agentInstalled: () => true },
  })
})
afterAll(() => b?.stop())

const send = async (path: string, body: unknown) => {
  const r = await b.post(path, body)
  return [r.status, await r.text()] as const
}

describe("/agent-start's prompt follows /send's rules", () => {
  test('ESC [201~, Ctrl-C, DEL and C1 are 400 with the /send text; nothing is started', async () => {
    const panes = b.state().panes.length
    for (const bad of ['go\u001b[201~; rm -rf ~', 'stop\u0003', 'a\u007fb', 'csi\u009b31m', 'tab\there']) {
      const sent = await send('/send', { pane: 'w1:p1', text: bad })
      const started = await send('/agent-start', { kind: 'claude', cwd: join(home, 'proj'), prompt: bad })
      expect(sent).toEqual([400, 'control characters other than \\n are not allowed'])
      expect([JSON.stringify(bad), ...started]).toEqual([JSON.stringify(bad), 400, `prompt: ${sent[1]}`])
    }
    expect(b.state().panes.length).toBe(panes)
    expect(b.calls().some((c) => c[0] === 'workspace' || c[0] === 'agent')).toBe(false)
  })

  test('a prompt /send would type is started with (its \\n kept)', async () => {
    const r = await b.post('/agent-start', { kind: 'claude', cwd: join(home, 'proj'), prompt: 'fix the build\nthen test', name: 'fixer' })
    expect(r.status).toBe(201)
    expect(b.calls().filter((c) => c[1] === 'prompt')).toEqual([['agent', 'prompt', 'fixer', 'fix the build\nthen test']])
  })
})

describe('a derived workspace label is printable', () => {
  test('a directory named with a newline and an escape sequence: the label has neither', async () => {
    const dir = join(home, 'evil\n\u001b[31mred\u202e')
    mkdirSync(dir)
    const r = await b.post('/agent-start', { kind: 'claude', cwd: dir, name: 'labeled' })
    expect(r.status).toBe(201)
    const create = b.calls().find((c) => c[0] === 'workspace' && c[1] === 'create' && c.includes(dir))!
    expect(create.at(-1)).toBe('evil[31mred')
  })

  test('workspaceLabel: printable characters of the name, at most 64; the path when the name has none', () => {
    expect(workspaceLabel('/home/me/proj')).toBe('proj')
    expect(workspaceLabel('/home/me/a\u0000b\u0085c\u2028d')).toBe('abcd')
    expect([...workspaceLabel(`/x/${'é'.repeat(100)}`)].length).toBe(64)
    expect(workspaceLabel('/')).toBe('/')
    expect(workspaceLabel('/srv/\u001b\u0007')).toBe('/srv/')
  })
})

describe('/pair/code takes a JSON object with known scopes, or nothing', () => {
  const post = async (body: string | undefined, type?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}` }
    if (type) headers['content-type'] = type
    const r = await fetch(`${b.base}/pair/code`, { method: 'POST', headers, body })
    return [r.status, await r.text()] as const
  }

  test('text, a form (curl -d), a bare JSON string, an array, unknown keys and non-lists are 400; no code is made', async () => {
    const want = 'want a JSON object (content-type: application/json)'
    const SCOPES_WANTED = /^(scopes: a list of|want \{"scopes")/
    const cases: [string, string | undefined, number, string | RegExp][] = [
      ['{"scopes":["read"]}', 'application/x-www-form-urlencoded', 400, want], // what curl -d sends
      ['{"scopes":["read"]}', 'text/plain', 400, want],
      ['{"scopes":["read"]}', undefined, 400, want],
      ['"read"', 'application/json', 400, want],
      ['["read"]', 'application/json', 400, want],
      ['null', 'application/json', 400, want],
      ['{"scope":["read"]}', 'application/json', 400, /^want \{"scopes"\?/],
      ['{"scopes":"read"}', 'application/json', 400, SCOPES_WANTED],
      ['{"scopes":["root"]}', 'application/json', 400, SCOPES_WANTED],
      ['{"scopes":[]}', 'application/json', 400, SCOPES_WANTED],
      ['{"scopes":null}', 'application/json', 400, SCOPES_WANTED],
    ]
    const before = (await b.json('/audit?limit=1000')).rows.filter(
      (r: { action: string; status: number }) => r.action === 'pair.code' && r.status === 200,
    ).length
    for (const [body, type, status, text] of cases) {
      const [got, said] = await post(body, type)
      expect([body, type, got]).toEqual([body, type, status])
      if (typeof text === 'string') expect(said).toBe(text)
      else expect(said).toMatch(text)
    }
    const after = (await b.json('/audit?limit=1000')).rows.filter(
      (r: { action: string; status: number }) => r.action === 'pair.code' && r.status === 200,
    ).length
    expect(after).toBe(before)
  })

  test('every known scope alone, a JSON object, and no body at all (the default) still make a code', async () => {
    for (const scope of SCOPES) {
      const [status, text] = await post(JSON.stringify({ scopes: [scope] }), 'application/json')
      expect([scope, status, JSON.parse(text).scopes]).toEqual([scope, 200, [scope]])
    }
    const [status, text] = await post(undefined)
    expect(status).toBe(200)
    expect(JSON.parse(text).scopes).toEqual(SCOPES.filter((s) => s !== 'admin'))
    expect((await post('{}', 'application/json; charset=utf-8'))[0]).toBe(200)
  })
})
