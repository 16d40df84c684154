import { describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { EntrySchema, LIMITS, type Draft } from '../../../../src/transcript/entry'
import { CONVERSATION_TYPES, normalizeClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'
import { corpusFiles, lineWithUuid, linesOf, normalizeFile, scenarioFile } from './corpus'

const one = (scenario: string, uuid: string): Draft[] => {
  const { line, offset } = lineWithUuid(scenarioFile(scenario), uuid)
  return normalizeClaudeLine(line, offset)
}

describe('every corpus session file', () => {
  const files = corpusFiles()

  test('the corpus is all there (2.1.197: 10 sessions + 5 subagents; cc-2139-real: 7 + 6; 2.1.332: 2 + 2; 2.1.39 capture: 1 + 1)', () => {
    const of = (re: RegExp) => files.filter((f) => re.test(f.split('/fixtures/claude/')[1]!))
    const count = (re: RegExp) => {
      const all = of(re)
      return [all.length - all.filter((f) => f.includes('/subagents/')).length, all.filter((f) => f.includes('/subagents/')).length]
    }
    expect(count(/^cc-2139-real\//)).toEqual([7, 6])
    expect(count(/^cc332-/)).toEqual([2, 2])
    expect(count(/^cc239-/)).toEqual([1, 1])
    expect(count(/^cc-(?!2139)/)).toEqual([10, 5])
    expect(files.length).toBe(13 + 4 + 2 + 15)
  })

  for (const file of files) {
    const name = file.split('/fixtures/claude/')[1]!
    test(`${name}: ids unique, deterministic, schema-valid, nothing unplaced`, () => {
      const a = normalizeFile(file)
      const b = normalizeFile(file)
      expect(b).toEqual(a)
      expect(a.length).toBeGreaterThan(0)
      const ids = a.map((d) => d.id)
      expect(new Set(ids).size).toBe(ids.length)
      a.forEach((d, i) => {
        const entry = { ...d, seq: i + 1 }
        if (!Value.Check(EntrySchema, entry)) throw new Error(`invalid entry ${JSON.stringify(entry).slice(0, 300)}`)
      })
      // The corpus is all known record types: nothing may fall through to parsed:false.
      expect(a.filter((d) => !d.parsed)).toEqual([])
    })
  }

  test('the 3.8 MB cc-long transcript: every tool call has exactly one result', () => {
    const drafts = normalizeFile(scenarioFile('cc-long'))
    const calls = drafts.filter((d) => d.kind === 'tool_call').map((d) => d.tool!.id)
    const results = drafts.filter((d) => d.kind === 'tool_result').map((d) => d.result!.for_id)
    expect(calls.length).toBe(264) // 156 Bash + 54 Write + 54 Edit
    expect(results.sort()).toEqual(calls.sort())
    expect(drafts.filter((d) => d.kind === 'message' && d.role === 'user').length).toBe(6)
  })
})

describe('tool calls', () => {
  test('Bash call carries command, description as subtitle, one-line summary', () => {
    const [d] = one('cc-bash-prompt', 'e075e4d3-7a24-4dbe-a9d5-802a10ebf5d5')
    expect(d).toEqual({
      id: 'e075e4d3-7a24-4dbe-a9d5-802a10ebf5d5#0',
      parent_id: 'c4c98269-c0f4-4802-8ab8-ce71c061675e',
      ts: d!.ts,
      role: 'assistant',
      kind: 'tool_call',
      tool: {
        id: 'toolu_mock000002',
        name: 'Bash',
        title: 'Bash',
        command: 'mkdir -p build && date > build/stamp.txt && echo stamped',
        subtitle: 'Create build dir and stamp file',
        input_summary: 'mkdir -p build && date > build/stamp.txt && echo stamped',
      },
      parsed: true,
    })
    expect(d!.ts).toMatch(/^2026-12-02T09:50:/)
  })

  test('Edit call: file basename and preview diff from old_string/new_string', () => {
    const [d] = one('cc-accept-edits', 'bd33148d-1545-493e-80c0-367704a6f26c')
    expect(d!.tool!.name).toBe('Edit')
    expect(d!.tool!.file).toBe('config.py')
    expect(d!.tool!.diff).toBe('@@ -1,1 +1,1 @@\n-DEBUG = False\n+DEBUG = True')
    expect(d!.tool!.diff_truncated).toBeUndefined()
    expect(d!.tool!.input_summary).toBe('/home/me/cc-accept-edits/proj/config.py')
  })

  test('500-line Write: preview diff capped to 400 lines, diff_truncated', () => {
    const [d] = one('cc-tools-mix', '6c65145f-a970-406c-930c-eb8111f1da62')
    expect(d!.tool!.file).toBe('big.txt')
    expect(d!.tool!.diff_truncated).toBe(true)
    // ~60-rune lines: the 12000-rune cap bites before the 400-line one
    expect(Array.from(d!.tool!.diff!).length).toBe(LIMITS.diffRunes)
    const lines = d!.tool!.diff!.split('\n')
    expect(lines.length).toBeLessThan(LIMITS.diffLines)
    expect(lines[0]).toBe('@@ -0,0 +1,500 @@')
    expect(lines[1]).toBe('+# line 001: generated content for the size test, value=1')
  })

  test('Agent call: description as subtitle, type · description as summary', () => {
    const drafts = normalizeFile(scenarioFile('cc-subagents'))
    const agent = drafts.find((d) => d.tool?.id === 'toolu_mock000009')!
    expect(agent.tool!.subtitle).toBe('Long background audit')
    expect(agent.tool!.input_summary).toBe('general-purpose · Long background audit')
  })

  test('AskUserQuestion summary is the question', () => {
    const d = normalizeFile(scenarioFile('cc-askuser')).find((x) => x.tool?.name === 'AskUserQuestion')!
    expect(d.tool!.input_summary).toBe('Which database should we use?')
  })

  test('unknown tool: compact JSON input, always present, ~120 runes', () => {
    const line = JSON.stringify({
      type: 'assistant',
      uuid: 'u1',
      message: { content: [{ type: 'tool_use', id: 't1', name: 'Frobnicate', input: { level: 'x'.repeat(500) } }] },
    })
    const [d] = normalizeClaudeLine(line, 0)
    expect(d!.tool!.input_summary!.startsWith('{"level":"xxx')).toBe(true)
    expect(Array.from(d!.tool!.input_summary!).length).toBe(120)
    const [empty] = normalizeClaudeLine(
      JSON.stringify({ type: 'assistant', uuid: 'u2', message: { content: [{ type: 'tool_use', id: 't2', name: 'Ping' }] } }),
      0,
    )
    expect(empty!.tool!.input_summary).toBe('Ping')
  })
})

describe('tool results', () => {
  test('failing Bash: ok:false, [stderr]-prefixed merged output', () => {
    const [d] = one('cc-tools-mix', '1ec7aa45-b376-4e5c-ba40-24b58b9970d2')
    expect(d!.role).toBe('user')
    expect(d!.kind).toBe('tool_result')
    expect(d!.result).toEqual({
      for_id: 'toolu_mock000003',
      ok: false,
      output_summary: '[stderr] Exit code 1\nchecking config...\nerror: config.yaml not found in /etc/app',
    })
  })

  test('structured Bash stderr is appended as [stderr] …', () => {
    const line = JSON.stringify({
      type: 'user',
      uuid: 'u',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
      toolUseResult: { stdout: 'built', stderr: 'warning: old', interrupted: false },
    })
    expect(normalizeClaudeLine(line, 0)[0]!.result).toEqual({ for_id: 't', ok: true, output_summary: 'built\n[stderr] warning: old' })
  })

  test('two results in one record (older builds): the record-level toolUseResult is not guessed onto either', () => {
    const line = JSON.stringify({
      type: 'user',
      uuid: 'u',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'one' },
          { type: 'tool_result', tool_use_id: 't2', content: 'two' },
        ],
      },
      toolUseResult: { stdout: 'one', stderr: '' },
    })
    expect(normalizeClaudeLine(line, 0).map((d) => [d.id, d.result!.for_id, d.result!.output_summary])).toEqual([
      ['u#0', 't1', 'one'],
      ['u#1', 't2', 'two'],
    ])
  })

  test('interrupted Bash is ok:false', () => {
    const line = JSON.stringify({
      type: 'user',
      uuid: 'u',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'partial' }] },
      toolUseResult: { stdout: 'partial', stderr: '', interrupted: true },
    })
    expect(normalizeClaudeLine(line, 0)[0]!.result!.ok).toBe(false)
  })

  test('rejected permission: ok:false "User rejected tool use"', () => {
    const [d] = one('cc-bash-prompt', '7b13d084-ac14-43ce-b2a1-9e4b0608e4d0')
    expect(d!.result).toEqual({ for_id: 'toolu_mock000004', ok: false, output_summary: 'User rejected tool use' })
  })

  test('Edit result: applied diff from structuredPatch', () => {
    const [d] = one('cc-accept-edits', '754073ce-6482-4370-a383-92f7688fe2ae')
    expect(d!.result!.ok).toBe(true)
    expect(d!.result!.diff).toBe('@@ -1,3 +1,3 @@\n-DEBUG = False\n+DEBUG = True\n PORT = 8000\n HOST = "127.0.0.1"')
    expect(d!.result!.truncated).toBeUndefined()
  })

  test('34 KB output: full stdout, not the persisted-output preview, capped at 4000 runes', () => {
    const [d] = one('cc-tools-mix', 'af27d322-01cd-44ee-8c46-98b6f6df5eaf')
    expect(d!.result!.truncated).toBe(true)
    expect(d!.result!.output_summary!.length).toBe(LIMITS.outputRunes)
    expect(d!.result!.output_summary!.startsWith('output line number 1\noutput line number 2\n')).toBe(true)
    expect(d!.result!.output_summary).not.toContain('persisted-output')
  })

  test('created file: applied diff is all-added, capped with truncated', () => {
    const [d] = one('cc-tools-mix', '28a77320-6ebc-4e7e-b7e3-0eb311177b2c')
    expect(d!.result!.ok).toBe(true)
    expect(d!.result!.output_summary).toStartWith('File created successfully at: /home/me/cc-tools-mix/proj/data/big.txt')
    expect(d!.result!.diff!.startsWith('@@ -0,0 +1,500 @@\n+# line 001:')).toBe(true)
    expect(Array.from(d!.result!.diff!).length).toBe(LIMITS.diffRunes)
    expect(d!.result!.truncated).toBe(true)
  })

  test('WebFetch error and "No such tool": ok:false, readable text without wrapper tags', () => {
    const [fetch] = one('cc-tools-mix', '89e56af6-119a-4d32-861a-13dec39ced33')
    expect(fetch!.result!.ok).toBe(false)
    expect(fetch!.result!.output_summary).toStartWith('Unable to verify if domain example.com is safe to fetch.')
    const [grep] = one('cc-tools-mix', '6ef7d566-08ce-41ca-95db-10523de0a9c3')
    expect(grep!.result!.ok).toBe(false)
    expect(grep!.result!.output_summary).toStartWith('Error: No such tool available: Grep.')
  })

  test('Read result is the numbered content; TaskCreate and TaskUpdate their text', () => {
    const [read] = one('cc-tools-mix', '66138e81-3df4-4388-ac2d-930363553ad2')
    expect(read!.result!.output_summary).toBe('1\t# Demo project\n2\t\n3\tA tiny project used for the tool tour.\n4\t\n5\tRun `python src/app.py`.\n6\t')
    const [task] = one('cc-tools-mix', '4ea33e87-3da5-44b6-8abe-87c913572fb4')
    expect(task!.result).toEqual({ for_id: 'toolu_mock000019', ok: true, output_summary: 'Task #1 created successfully: Fix config lookup' })
  })

  test('sync Agent result: the answer without the agentId/usage trailer', () => {
    const [d] = one('cc-subagents', '7b181a71-d276-4727-9eae-6399509d22dc')
    expect(d!.result).toEqual({ for_id: 'toolu_mock000002', ok: true, output_summary: 'ALPHA result: there are no build scripts.' })
  })

  test('async Agent launch: first line only', () => {
    const [d] = one('cc-subagents', '462f72d9-9bfb-438d-97f1-4624edf3f98d')
    expect(d!.result).toEqual({ for_id: 'toolu_mock000009', ok: true, output_summary: 'Async agent launched successfully.' })
  })
})

test('a diff of many short lines is capped at 400 lines', () => {
  const content = Array.from({ length: 600 }, (_, i) => `l${i}`).join('\n')
  const line = JSON.stringify({
    type: 'assistant',
    uuid: 'w',
    message: { content: [{ type: 'tool_use', id: 't', name: 'Write', input: { file_path: '/a/b.txt', content } }] },
  })
  const [d] = normalizeClaudeLine(line, 0)
  expect(d!.tool!.diff!.split('\n').length).toBe(LIMITS.diffLines)
  expect(d!.tool!.diff_truncated).toBe(true)
})

describe('messages and wrappers', () => {
  test('typed prompt → user message; assistant text → assistant message', () => {
    const drafts = normalizeFile(scenarioFile('cc-clear', 'a229'))
    expect(drafts.map((d) => [d.role, d.kind, d.text])).toEqual([
      ['user', 'message', 'What is in the repo?'],
      ['assistant', 'message', 'First answer: the repo is empty.'],
      ['user', 'message', 'Anything else?'],
      ['assistant', 'message', 'Second answer: still empty, nothing to add.'],
    ])
  })

  test('after /clear: caveat is noise, the slash command is "/clear", empty stdout is nothing', () => {
    const drafts = normalizeFile(scenarioFile('cc-clear', 'a608'))
    expect(drafts.map((d) => [d.role, d.kind, d.text])).toEqual([
      ['user', 'message', '/clear'],
      ['user', 'message', 'Hello after clear'],
      ['assistant', 'message', 'Fresh context: hello again, what should we build?'],
    ])
  })

  test('thinking with text → thinking entry; empty thinking (signature only) → nothing', () => {
    const [d] = one('cc-tools-mix', 'e7888442-6861-40c8-9330-cce6c7045aca')
    expect(d!.kind).toBe('thinking')
    expect(d!.role).toBe('assistant')
    expect(d!.text).toBe('The user wants a tour of the tools. I should first check the toolchain, expecting the config check to fail.')
    const redacted = JSON.stringify({
      type: 'assistant',
      uuid: 'u',
      message: {
        content: [
          { type: 'thinking', thinking: '', signature: 'abc' },
          { type: 'text', text: 'hi' },
        ],
      },
    })
    expect(normalizeClaudeLine(redacted, 0).map((x) => [x.id, x.kind])).toEqual([['u#1', 'message']])
  })

  test('task-notification user record → readable system message', () => {
    const [d] = one('cc-subagents', '859f761c-e8b9-415e-b516-494bcef5a25d')
    expect(d!.role).toBe('system')
    expect(d!.kind).toBe('message')
    expect(d!.text).toBe('Agent "Long background audit" finished\n\nGAMMA result: audit clean.')
  })

  test('interruption marker → system message', () => {
    const [d] = one('cc-bash-prompt', '97453445-4c86-496b-9bbb-07235310d531')
    expect([d!.role, d!.kind, d!.text]).toEqual(['system', 'message', '[Request interrupted by user for tool use]'])
  })

  test('image block → "[image]" attachment; text beside it stays a message', () => {
    const line = JSON.stringify({
      type: 'user',
      uuid: 'u',
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'base64', data: 'AAAA' } },
        ],
      },
    })
    expect(normalizeClaudeLine(line, 0).map((d) => [d.id, d.kind, d.text])).toEqual([
      ['u#0', 'message', 'look'],
      ['u#1', 'attachment', '[image]'],
    ])
  })

  test('compaction summary and boundary, away summary, local command output are system messages', () => {
    const lines = [
      { type: 'user', uuid: 'a', isCompactSummary: true, message: { role: 'user', content: 'This session is being continued…' } },
      { type: 'system', uuid: 'b', subtype: 'compact_boundary', compactMetadata: { trigger: 'auto' } },
      { type: 'system', uuid: 'c', subtype: 'away_summary', content: 'Goal: ship it.' },
      { type: 'system', uuid: 'd', subtype: 'local_command', content: '<local-command-stdout>Set model to opus</local-command-stdout>' },
    ]
    expect(lines.flatMap((l, i) => normalizeClaudeLine(JSON.stringify(l), i)).map((d) => [d.role, d.text])).toEqual([
      ['system', 'This session is being continued…'],
      ['system', 'Conversation compacted (auto)'],
      ['system', 'Goal: ship it.'],
      ['system', 'Set model to opus'],
    ])
  })

  test('a prompt typed while busy: a user message at its enqueue, nothing from its later deliveries', () => {
    const enqueue = JSON.stringify({
      type: 'queue-operation',
      operation: 'enqueue',
      timestamp: '2026-12-02T10:00:00.000Z',
      sessionId: 's',
      content: 'also fix the tests',
    })
    expect(normalizeClaudeLine(enqueue, 40)).toEqual([
      { id: 'queue-operation@40#0', ts: '2026-12-02T10:00:00.000Z', role: 'user', kind: 'message', text: 'also fix the tests', parsed: true },
    ])
    const midTurn = JSON.stringify({ type: 'attachment', uuid: 'q', attachment: { type: 'queued_command', prompt: 'also fix the tests' } })
    const newTurn = JSON.stringify({
      type: 'user',
      uuid: 'u',
      promptSource: 'queued',
      origin: { kind: 'human' },
      message: { role: 'user', content: 'also fix the tests' },
    })
    const newTurnBlocks = JSON.stringify({
      type: 'user',
      uuid: 'u',
      promptSource: 'queued',
      message: { role: 'user', content: [{ type: 'text', text: 'also fix the tests' }] },
    })
    for (const l of [midTurn, newTurn, newTurnBlocks]) expect(normalizeClaudeLine(l, 0)).toEqual([])
    // the other queue operations, an enqueued slash command (its own record shows it when it runs)
    // and an enqueued notification (its user record carries it) yield nothing
    for (const l of [
      { type: 'queue-operation', operation: 'dequeue', sessionId: 's' },
      { type: 'queue-operation', operation: 'remove', sessionId: 's', content: 'also fix the tests' },
      { type: 'queue-operation', operation: 'popAll', sessionId: 's' },
      { type: 'queue-operation', operation: 'enqueue', sessionId: 's', content: '/mcp' },
      { type: 'queue-operation', operation: 'enqueue', sessionId: 's', content: '/review  src/app.ts' },
      {
        type: 'queue-operation',
        operation: 'enqueue',
        sessionId: 's',
        content: '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>',
      },
      { type: 'queue-operation', operation: 'enqueue', sessionId: 's', content: '   ' },
    ])
      expect([l, normalizeClaudeLine(JSON.stringify(l), 0)]).toEqual([l, []])
    // a prompt that merely starts with a path is a prompt, not a command
    const path = JSON.stringify({ type: 'queue-operation', operation: 'enqueue', sessionId: 's', content: '/etc/hosts is wrong' })
    expect(normalizeClaudeLine(path, 0).map((d) => d.text)).toEqual(['/etc/hosts is wrong'])
    // a notification delivered mid-turn is still shown from its attachment
    const notice = JSON.stringify({
      type: 'attachment',
      uuid: 'n',
      attachment: {
        type: 'queued_command',
        prompt:
          '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>Background command "x" completed (exit code 0)</summary>\n</task-notification>',
      },
    })
    expect(normalizeClaudeLine(notice, 0).map((d) => [d.role, d.text])).toEqual([['system', 'Background command "x" completed (exit code 0)']])
  })

  test('message bodies are capped at 20000 runes', () => {
    const line = JSON.stringify({ type: 'assistant', uuid: 'u', message: { content: [{ type: 'text', text: '😀'.repeat(25000) }] } })
    const [d] = normalizeClaudeLine(line, 0)
    expect(Array.from(d!.text!).length).toBe(LIMITS.bodyRunes)
  })
})

describe('sidecars and bad input', () => {
  test('every record of the corpus that is not conversation produces nothing (both versions)', () => {
    const silent = new Map<string, string>()
    for (const f of corpusFiles())
      for (const { line } of linesOf(f)) {
        const r = JSON.parse(line)
        const key =
          r.type === 'attachment'
            ? `attachment/${r.attachment.type}`
            : r.type === 'system'
              ? `system/${r.subtype}`
              : r.type === 'queue-operation'
                ? `queue-operation/${r.operation}`
                : r.type
        if (
          !CONVERSATION_TYPES.has(r.type) ||
          key === 'system/turn_duration' ||
          key === 'system/stop_hook_summary' ||
          (r.type === 'attachment' && r.attachment.type !== 'queued_command') ||
          (r.type === 'queue-operation' && r.operation !== 'enqueue')
        )
          silent.set(key, line)
      }
    // the 2.1.332 bookkeeping records the issue names, among the others
    for (const k of [
      'api-request-blob',
      'api-request-shape',
      'api-request',
      'atis-latch',
      'tools-used',
      'progress',
      'file-history-snapshot',
      'queue-operation/remove',
      'queue-operation/dequeue',
      'attachment/prompt_snapshot',
    ])
      expect([...silent.keys()]).toContain(k)
    for (const [key, line] of silent) expect([key, normalizeClaudeLine(line, 0)]).toEqual([key, []])
  })

  test('empty and whitespace-only lines → nothing', () => {
    expect(normalizeClaudeLine('', 0)).toEqual([])
    expect(normalizeClaudeLine('   \t\r', 5)).toEqual([])
  })

  const bad: [string, string][] = [
    ['half a JSON line', '{"parentUuid":"x","type":"user","message":{"role":"us'],
    ['garbage', 'hello world'],
    ['binary', '\u0000\u0001\u00ff\ufffd\u0007PNG'],
    ['a JSON number', '42'],
    ['a JSON array', '[1,2,3]'],
    ['JSON null', 'null'],
    ['user without message', '{"type":"user","uuid":"u"}'],
    ['assistant with non-array content', '{"type":"assistant","uuid":"u","message":{"content":7}}'],
    ['attachment without attachment', '{"type":"attachment","uuid":"u"}'],
    ['no type at all', '{"foo":"bar"}'],
  ]
  for (const [name, line] of bad) {
    test(`${name} → one parsed:false entry with the raw text`, () => {
      const out = normalizeClaudeLine(line, 123)
      expect(out).toEqual([{ id: 'line@123#0', role: 'system', kind: 'message', text: line, parsed: false }])
      expect(Value.Check(EntrySchema, { ...out[0], seq: 1 })).toBe(true)
    })
  }

  test('a record type that is not conversation → nothing, whatever it carries (allow-list, no code change per new type)', () => {
    expect(normalizeClaudeLine('{"type":"shiny-new-sidecar","sessionId":"s","value":1}', 0)).toEqual([])
    // a future bookkeeping type shaped like a message must not reach the chat either
    for (const rec of [
      { type: 'hologram', uuid: 'h', content: 'beam me up' },
      { type: 'api-request-blob-v2', sessionId: 's', hash: 'h', message: { role: 'system', content: [{ type: 'text', text: 'You are Claude Code…' }] } },
      { type: 'assistant-draft', uuid: 'd', parentUuid: 'p', message: { role: 'assistant', content: [{ type: 'text', text: 'half' }] } },
    ])
      expect([rec.type, normalizeClaudeLine(JSON.stringify(rec), 0)]).toEqual([rec.type, []])
  })

  test('unknown content block in a known record → that block passed through as parsed:false', () => {
    const line = JSON.stringify({
      type: 'assistant',
      uuid: 'u',
      message: {
        content: [
          { type: 'text', text: 'a' },
          { type: 'hologram', text: 'b' },
        ],
      },
    })
    expect(normalizeClaudeLine(line, 0).map((d) => [d.id, d.text, d.parsed])).toEqual([
      ['u#0', 'a', true],
      ['u#1', 'b', false],
    ])
  })

  test('hostile shapes inside known records never throw', () => {
    const shapes = [
      { type: 'user', uuid: 'u', message: { content: [null, 3, 'x', { type: 'tool_result' }] }, toolUseResult: 'Error' },
      {
        type: 'user',
        uuid: 'u',
        message: { content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 5 }] }] },
        toolUseResult: { structuredPatch: [null, { oldStart: 'a' }] },
      },
      { type: 'assistant', uuid: 'u', message: { content: [{ type: 'tool_use', id: 't', name: 'Edit', input: { old_string: 1, new_string: null } }] } },
      {
        type: 'assistant',
        uuid: 'u',
        message: { content: [{ type: 'tool_use', id: 't', name: 'MultiEdit', input: { edits: [null, { old_string: 'a', new_string: 'b' }] } }] },
      },
      { type: 'system', uuid: 's', subtype: 'compact_boundary', compactMetadata: 'x' },
      { type: 'attachment', uuid: 'a', attachment: { type: 'queued_command', prompt: [{ type: 'text', text: '<task-notification>\n<task-id>x</task-id>' }] } },
    ]
    for (const s of shapes) {
      const out = normalizeClaudeLine(JSON.stringify(s), 0)
      for (const d of out) expect(Value.Check(EntrySchema, { ...d, seq: 1 })).toBe(true)
    }
  })
})
