import { describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { EntrySchema, LIMITS, type Draft } from '../../../../src/transcript/entry'
import { encodePiCwd, normalizePiLine, piHeaderCwd, piSessionIdFromPath } from '../../../../src/transcript/kinds/pi/normalize'
import { piDiffToUnified } from '../../../../src/transcript/kinds/pi/diff'

const FIX = join(import.meta.dir, '../../../../fixtures/pi')

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.jsonl') ? [p] : []
  })
}

/** Normalizes a whole file the way a tail would: line by line with byte offsets. */
function normalizeFile(path: string): Draft[] {
  const text = readFileSync(path, 'utf8')
  const out: Draft[] = []
  let offset = 0
  for (const line of text.split('\n')) {
    out.push(...normalizePiLine(line, offset))
    offset += Buffer.byteLength(line) + 1
  }
  return out
}

const files = walk(FIX)
const BASIC = files.find((f) => f.includes('/pi-basic/'))!

test('the fixtures hold five sessions (three of pi 0.73.1, two of 1.6.0), three with tool calls', () => {
  expect(files.length).toBe(5)
  const withCalls = files.filter((f) => normalizeFile(f).some((d) => d.kind === 'tool_call'))
  expect(withCalls.length).toBe(3)
})

describe('pi 1.6.0 (fixtures/pi/pi160-*: the same scenarios recorded from @earendil-works/pi-coding-agent)', () => {
  const PI160_BASIC = files.find((f) => f.includes('/pi160-basic/'))!
  const PI160_NOTICES = files.find((f) => f.includes('/pi160-notices/'))!
  const kinds = (ds: Draft[]) => ds.map((d) => `${d.role}/${d.kind}`)

  test('the system message (prompt sections and tool loadout) yields nothing: the same conversation as 0.73.1', () => {
    const line = readFileSync(PI160_BASIC, 'utf8')
      .split('\n')
      .find((l) => l.includes('"role":"system"'))!
    expect(line).toContain('"sections"')
    expect(normalizePiLine(line, 0)).toEqual([])
    expect(kinds(normalizeFile(PI160_BASIC))).toEqual(kinds(normalizeFile(BASIC)))
  })

  test('context_edit (hides a retried error from the model, not from the user) yields nothing; the errors stay', () => {
    const lines = readFileSync(PI160_NOTICES, 'utf8').split('\n')
    const edits = lines.filter((l) => l.includes('"type":"context_edit"'))
    expect(edits.length).toBe(4)
    for (const l of edits) expect(normalizePiLine(l, 0)).toEqual([])
    const drafts = normalizeFile(PI160_NOTICES)
    expect(drafts.every((d) => d.parsed)).toBe(true)
    expect(drafts.filter((d) => d.role === 'user' && d.kind === 'message').map((d) => d.text)).toEqual([
      'what is in the notes?',
      'explain the layout',
      'try once more',
      'one more time',
    ])
    expect(drafts.filter((d) => d.text?.includes('529')).length).toBeGreaterThan(0)
  })
})

describe.each(files.map((f) => [f.slice(FIX.length + 1), f]))('%s', (_name, file) => {
  const drafts = normalizeFile(file)

  test('every draft is a valid entry, ids unique', () => {
    expect(drafts.length).toBeGreaterThan(0)
    for (const d of drafts) expect(Value.Check(EntrySchema, { ...d, seq: 1 })).toBe(true)
    expect(new Set(drafts.map((d) => d.id)).size).toBe(drafts.length)
  })

  test('deterministic', () => {
    expect(normalizeFile(file)).toEqual(drafts)
  })

  test('every tool_call has exactly one result and vice versa', () => {
    const calls = drafts.filter((d) => d.kind === 'tool_call').map((d) => d.tool!.id)
    const results = drafts.filter((d) => d.kind === 'tool_result').map((d) => d.result!.for_id)
    expect(results.sort()).toEqual(calls.sort())
    expect(new Set(calls).size).toBe(calls.length)
  })

  test('the header and metadata records produce nothing; all lines parse', () => {
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(normalizePiLine(lines[0], 0)).toEqual([])
    for (const l of lines.filter((l) => /"type":"(model_change|thinking_level_change)"/.test(l))) expect(normalizePiLine(l, 5)).toEqual([])
    expect(drafts.every((d) => d.parsed)).toBe(true)
  })
})

describe('pi-basic content', () => {
  const drafts = normalizeFile(BASIC)
  const byTool = (id: string) => drafts.find((d) => d.tool?.id === id)!
  const resultFor = (id: string) => drafts.find((d) => d.result?.for_id === id)!

  test('the conversation in order', () => {
    expect(drafts.map((d) => `${d.role}/${d.kind}`)).toEqual([
      'user/message',
      'assistant/thinking',
      'assistant/message',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/message',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/message',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/message',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/message',
    ])
  })

  test('ids, parent ids and timestamps come from the entry', () => {
    const thinking = drafts[1]
    expect(thinking).toEqual({
      id: 'b2361cc8#0',
      parent_id: '1c2470dd',
      ts: '2026-12-02T10:04:32.063Z',
      role: 'assistant',
      kind: 'thinking',
      text: "The user wants a quick tour. I'll run a harmless command first, then a failing one.",
      parsed: true,
    })
    expect(drafts[3].id).toBe('b2361cc8#2')
  })

  test('bash call carries its command; ok result its output', () => {
    expect(byTool('toolu_mock000002').tool).toEqual({
      id: 'toolu_mock000002',
      name: 'bash',
      title: 'bash',
      command: 'echo hello from pi && uname -s',
      input_summary: 'echo hello from pi && uname -s',
    })
    expect(resultFor('toolu_mock000002').result).toEqual({
      for_id: 'toolu_mock000002',
      ok: true,
      output_summary: 'hello from pi\nLinux\n',
    })
  })

  test('failing bash is ok:false with its output', () => {
    const r = resultFor('toolu_mock000004').result!
    expect(r.ok).toBe(false)
    expect(r.output_summary).toContain('Command exited with code 1')
  })

  test('write previews the whole new file as an added hunk', () => {
    const t = byTool('toolu_mock000006').tool!
    expect(t.file).toBe('notes.md')
    expect(t.diff).toBe('@@ -0,0 +1,6 @@\n+# Notes\n+\n+Status: draft\n+\n+- item one\n+- item two')
  })

  test('edit previews its replacement and its result carries the applied unified diff', () => {
    const t = byTool('toolu_mock000008').tool!
    expect(t.file).toBe('notes.md')
    expect(t.diff).toBe('@@ -1,1 +1,1 @@\n-Status: draft\n+Status: final')
    expect(resultFor('toolu_mock000008').result).toEqual({
      for_id: 'toolu_mock000008',
      ok: true,
      output_summary: 'Successfully replaced 1 block(s) in notes.md.',
      diff: '@@ -1,6 +1,6 @@\n # Notes\n \n-Status: draft\n+Status: final\n \n - item one\n - item two',
    })
  })
})

describe('pi display diff → unified diff', () => {
  test('skipped context splits hunks; numbers after a change are shifted', () => {
    const pi = ['  1 a', '- 2 b', '+ 2 B1', '+ 3 B2', '  3 c', '    ...', ' 10 j', '-11 k', ' 12 l'].join('\n')
    expect(piDiffToUnified(pi)).toBe('@@ -1,3 +1,4 @@\n a\n-b\n+B1\n+B2\n c\n@@ -10,3 +11,2 @@\n j\n-k\n l')
  })

  test('a hunk that starts with an addition', () => {
    expect(piDiffToUnified('+1 new first\n 1 old first')).toBe('@@ -1,1 +1,2 @@\n+new first\n old first')
  })

  test('anything else is not guessed at', () => {
    expect(piDiffToUnified('--- a/x\n+++ b/x')).toBeUndefined()
    expect(piDiffToUnified('')).toBeUndefined()
    expect(piDiffToUnified('hello')).toBeUndefined()
  })
})

describe('bad input never throws and is passed through', () => {
  const garbage = [
    '{"type":"message","id":"x"', // half line
    'not json at all',
    '\u0000\u0001\u00ff\ufffd binary',
    '42',
    '[1,2]',
    'null',
    '{"no":"type"}',
    '{"type":"message","id":"abc","message":{"role":"wizard"}}',
    '{"type":"message","id":"abc","message":"string"}',
    '{"type":"something_new","id":"n1"}',
    '{"type":"message","id":"abc","message":{"role":"assistant","content":"not an array"}}',
  ]
  test.each(garbage)('%p → one parsed:false entry', (line) => {
    const d = normalizePiLine(line, 77)
    expect(d).toHaveLength(1)
    expect(d[0].parsed).toBe(false)
    expect(d[0].role).toBe('system')
    expect(d[0].id).toBe('line@77#0')
    expect(Value.Check(EntrySchema, { ...d[0], seq: 3 })).toBe(true)
  })

  test('odd blocks inside a valid message are skipped, not fatal', () => {
    const line = JSON.stringify({
      type: 'message',
      id: 'm1',
      parentId: null,
      timestamp: 'not a date',
      message: {
        role: 'assistant',
        content: [null, 7, { type: 'toolCall' }, { type: 'thinking', thinking: '' }, { type: 'text', text: 'hi' }],
        stopReason: 'error',
        errorMessage: 'overloaded',
      },
    })
    const d = normalizePiLine(line, 0)
    expect(d.map((x) => [x.id, x.kind, x.role, x.text])).toEqual([
      ['m1#4', 'message', 'assistant', 'hi'],
      ['m1#5', 'message', 'system', 'overloaded'],
    ])
    expect(d[0].ts).toBeUndefined()
    expect(d[0].parent_id).toBeUndefined()
  })

  test('empty and whitespace lines yield nothing', () => {
    expect(normalizePiLine('', 0)).toEqual([])
    expect(normalizePiLine('   ', 0)).toEqual([])
  })
})

describe('limits', () => {
  test('tool output is capped at 4000 runes and marked truncated', () => {
    const big = '😀'.repeat(5000)
    const line = JSON.stringify({
      type: 'message',
      id: 'r1',
      message: { role: 'toolResult', toolCallId: 't1', content: [{ type: 'text', text: big }], isError: false },
    })
    const r = normalizePiLine(line, 0)[0].result!
    expect([...r.output_summary!].length).toBe(LIMITS.outputRunes)
    expect(r.truncated).toBe(true)
  })

  test('a huge write preview is capped and flagged', () => {
    const content = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n')
    const line = JSON.stringify({
      type: 'message',
      id: 'a1',
      message: { role: 'assistant', content: [{ type: 'toolCall', id: 't', name: 'write', arguments: { path: '/x/y.txt', content } }] },
    })
    const t = normalizePiLine(line, 0)[0].tool!
    expect(t.diff!.split('\n').length).toBe(LIMITS.diffLines)
    expect(t.diff_truncated).toBe(true)
    expect(t.file).toBe('y.txt')
  })

  test('message bodies are capped at 20000 runes', () => {
    const line = JSON.stringify({ type: 'message', id: 'u', message: { role: 'user', content: 'x'.repeat(30000) } })
    expect(normalizePiLine(line, 0)[0].text!.length).toBe(LIMITS.bodyRunes)
  })
})

describe('other record kinds', () => {
  test('user-run !cmd becomes a paired call and result', () => {
    const line = JSON.stringify({
      type: 'message',
      id: 'be1',
      message: { role: 'bashExecution', command: 'ls', output: 'a\nb', exitCode: 2, cancelled: false, truncated: false },
    })
    const [call, res] = normalizePiLine(line, 0)
    expect(call.tool!.id).toBe(res.result!.for_id)
    expect(call.tool!.command).toBe('ls')
    expect(res.result!.ok).toBe(false)
  })

  test('compaction is a system note; custom extension state is dropped', () => {
    const c = normalizePiLine(JSON.stringify({ type: 'compaction', id: 'c1', summary: 'S', firstKeptEntryId: 'x' }), 0)
    expect(c.map((d) => [d.role, d.kind, d.text])).toEqual([['system', 'message', 'Context compacted\n\nS']])
    expect(normalizePiLine(JSON.stringify({ type: 'custom', id: 'z', customType: 'x', data: {} }), 0)).toEqual([])
  })

  test('user images are attachments; newer details.patch wins over details.diff', () => {
    const u = normalizePiLine(
      JSON.stringify({
        type: 'message',
        id: 'u1',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          ],
        },
      }),
      0,
    )
    expect(u.map((d) => [d.id, d.kind, d.text])).toEqual([
      ['u1#0', 'message', 'see'],
      ['u1#1', 'attachment', '[image]'],
    ])
    const r = normalizePiLine(
      JSON.stringify({
        type: 'message',
        id: 'r2',
        message: {
          role: 'toolResult',
          toolCallId: 'e1',
          content: 'done',
          isError: false,
          details: { diff: '-1 a\n+1 b', patch: '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n' },
        },
      }),
      0,
    )[0].result!
    expect(r.diff).toBe('@@ -1 +1 @@\n-a\n+b')
    expect(r.output_summary).toBe('done')
  })
})

describe('resolution helpers', () => {
  test('encodePiCwd follows pi (and the contract example)', () => {
    expect(encodePiCwd('/Users/x/projects/gothalo')).toBe('--Users-x-projects-gothalo--')
    expect(encodePiCwd('/home/me/pi-basic/proj')).toBe('--home-me-pi-basic-proj--')
    expect(encodePiCwd('C:\\src\\x')).toBe('--C--src-x--')
    expect(encodePiCwd('/a/.hidden/b')).toBe('--a-.hidden-b--')
  })

  test('every fixture dir is the encoding of its header cwd', () => {
    for (const f of files) {
      const cwd = piHeaderCwd(readFileSync(f, 'utf8').split('\n')[0])!
      expect(f.split('/').at(-2)).toBe(encodePiCwd(cwd))
    }
  })

  test('piHeaderCwd rejects non-headers', () => {
    expect(piHeaderCwd('{"type":"message","cwd":"/x"}')).toBeUndefined()
    expect(piHeaderCwd('garbage')).toBeUndefined()
    expect(piHeaderCwd('')).toBeUndefined()
  })

  test('piSessionIdFromPath matches the header id', () => {
    for (const f of files) {
      const header = JSON.parse(readFileSync(f, 'utf8').split('\n')[0])
      expect(piSessionIdFromPath(f)).toBe(header.id)
    }
    expect(piSessionIdFromPath('/x/2025-01-01T00-00-00-000Z_foo.jsonl')).toBe('foo')
    expect(piSessionIdFromPath('/x/notes.md')).toBeUndefined()
    expect(piSessionIdFromPath('')).toBeUndefined()
  })
})
