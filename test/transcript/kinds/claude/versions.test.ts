// What the transcript reader does with the records of the Claude Code versions
// people still have on disk: 2.1.332 (captured here), 2.1.39 (captured here)
// and the real 2.1.38/2.1.39 sessions of cc-2139-real.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Draft } from '../../../../src/transcript/entry'
import { normalizeClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'
import { FIXTURES, corpusFiles, linesOf, normalizeFile } from './corpus'

const REAL = join(FIXTURES, 'cc-2139-real/projects')
const real = (dir: string, sid: string) => join(REAL, dir, `${sid}.jsonl`)
const GQC = real('-home-USER-projects-spotter-worktrees-spotter-gqc', '258c7280-ae70-4798-800f-63464d01a85d')
const DOV = real('-home-USER-projects-spotter-worktrees-spotter-dov', '4d5611e5-241a-462a-8d15-5122611a9569')
const TE4 = real('-home-USER-projects-spotter-worktrees-spotter-4te', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04')
const ORT = real('-home-USER-projects-spotter-worktrees-spotter-0rt', 'afc096d0-0000-4000-8000-6c2214d70000')
const MARCO = (sid: string) => real('-home-marco-projects-spotter', sid)
const session = (scenario: string) => corpusFiles(join(FIXTURES, scenario)).find((f) => !f.includes('/subagents/'))!
const MIX332 = session('cc332-mix')
const QUEUE332 = session('cc332-queue')
const QUEUE239 = session('cc239-queue')

const userMessages = (d: Draft[]) => d.filter((e) => e.role === 'user' && e.kind === 'message').map((e) => e.text)
const ESC = /[\u001b\u009b]/

describe('2.1.332 bookkeeping never reaches the chat', () => {
  for (const f of [MIX332, QUEUE332]) {
    test(`${f.split('/fixtures/claude/')[1]}: no entry from api-request*, atis-latch, tools-used; nothing unplaced`, () => {
      let bookkeeping = 0
      for (const { line, offset } of linesOf(f)) {
        const type = JSON.parse(line).type as string
        if (!['api-request-blob', 'api-request-shape', 'api-request', 'atis-latch', 'tools-used'].includes(type)) continue
        bookkeeping++
        expect([type, normalizeClaudeLine(line, offset)]).toEqual([type, []])
      }
      expect(bookkeeping).toBeGreaterThan(10)
      const drafts = normalizeFile(f)
      expect(drafts.filter((d) => !d.parsed)).toEqual([])
      // the raw system prompt the blobs carry is nowhere in the chat
      expect(drafts.some((d) => (d.text ?? '').includes("You are Claude Code, Anthropic's official CLI"))).toBe(false)
    })
  }
})

describe('prompts typed while the agent was busy appear once each, in order', () => {
  test('2.1.39, consumed mid-turn (enqueue + remove, no user record) and 2.1.332 (enqueue + attachment), same chat', () => {
    const want = ['QUEUE-1: start the work', 'QUEUED-MID: typed during the tool', 'QUEUED-END: typed during the answer', '/greet Bob']
    expect(userMessages(normalizeFile(QUEUE239))).toEqual(want)
    expect(userMessages(normalizeFile(QUEUE332))).toEqual(want)
    // and where: right after the call it was typed under, before that call's result
    for (const f of [QUEUE239, QUEUE332]) {
      const d = normalizeFile(f)
      const at = d.findIndex((e) => e.text === 'QUEUED-MID: typed during the tool')
      expect(d[at - 1]!.tool?.command).toBe('sleep 10; echo slept')
      expect(d[at + 1]!.result?.output_summary).toBe('slept')
    }
  })

  test('2.1.332 new-turn delivery (enqueue + dequeue + user record promptSource "queued"): once, when typed', () => {
    const msgs = userMessages(normalizeFile(MIX332))
    expect(msgs.filter((m) => m === 'MIX-QUEUED-2: typed while busy')).toHaveLength(1)
    expect(msgs).toEqual([
      'MIX-1: look around and run the checks',
      'MIX-QUEUED-1: also mention the line count',
      'MIX-QUEUED-2: typed while busy',
      '/greet Alex',
      '/model',
      '!echo shell mode',
    ])
  })

  test('cc-2139-real 258c7280: the two prompts that had no user record are back, in file order', () => {
    const msgs = userMessages(normalizeFile(GQC))
    const a = msgs.indexOf('check again')
    const b = msgs.indexOf('new beads for the epic were added. tackle them')
    expect(a).toBeGreaterThan(0)
    expect(b).toBeGreaterThan(a)
    expect(msgs.filter((m) => m === 'check again')).toHaveLength(1)
  })

  test('cc-2139-real d6e0bada: "/mcp" typed while busy is shown by the command it ran, not twice more', () => {
    const msgs = userMessages(normalizeFile(MARCO('d6e0bada-1959-4eec-a9d2-0bfade768d8f')))
    // the enqueue adds nothing; the CLI filed the command once as a user record and once as a local_command
    expect(msgs.filter((m) => m === '/mcp')).toHaveLength(2)
    expect(msgs.filter((m) => m?.startsWith('/mcp')).length).toBe(2)
  })
})

describe("the user's slash commands are shown the same way, however the CLI filed them", () => {
  const commandEntries = (f: string) =>
    normalizeFile(f)
      .filter((e) => /^[/!]\w/.test(e.text ?? '') && !(e.text ?? '').includes('\n'))
      .map((e) => ({ role: e.role, kind: e.kind, text: e.text }))
  test('user-record commands (/greet), system local_command (/model), shell mode (!cmd): user messages "/name args"', () => {
    expect(commandEntries(MIX332)).toEqual([
      { role: 'user', kind: 'message', text: '/greet Alex' },
      { role: 'user', kind: 'message', text: '/model' },
      { role: 'user', kind: 'message', text: '!echo shell mode' },
    ])
    expect(commandEntries(MARCO('55604662-cf2a-4331-851a-ec234028f8ca'))).toEqual([{ role: 'user', kind: 'message', text: '/model' }])
    expect(commandEntries(MARCO('d6e0bada-1959-4eec-a9d2-0bfade768d8f'))).toEqual([
      { role: 'user', kind: 'message', text: '/mcp' },
      { role: 'user', kind: 'message', text: '/mcp' },
    ])
  })
  test("the command's output stays a system message", () => {
    const d = normalizeFile(MIX332)
    const at = d.findIndex((e) => e.text === '/model')
    expect(d[at + 1]).toMatchObject({ role: 'system', kind: 'message', text: 'Kept model as `Opus 5.5 (default)`' })
  })
})

describe('no ANSI escape reaches a text field', () => {
  test('on every entry of every fixture session', () => {
    for (const f of corpusFiles()) {
      const dirty = normalizeFile(f).filter((d) => ESC.test(JSON.stringify(d).replace(/\\u001b|\\u009b/gi, '\u001b')))
      expect([f.split('/fixtures/claude/')[1], dirty.map((d) => d.id)]).toEqual([f.split('/fixtures/claude/')[1], []])
    }
  })
  test('the coloured output keeps its text: Bash output (2.1.332), /model and /compact notices (2.1.38/39)', () => {
    const texts = (f: string) => normalizeFile(f).map((d) => d.text ?? d.result?.output_summary ?? '')
    expect(texts(MIX332)).toContain('green ok\nnotes.txt')
    expect(texts(MARCO('55604662-cf2a-4331-851a-ec234028f8ca'))).toContain('Kept model as Default (recommended)')
    expect(texts(TE4).some((t) => t.startsWith('Compacted (ctrl+o to see full summary)'))).toBe(true)
  })
  test('escapes in every string field of a tool card are removed', () => {
    const line = JSON.stringify({
      type: 'assistant',
      uuid: 'u',
      message: {
        content: [{ type: 'tool_use', id: 't', name: 'Bash', input: { command: 'echo \u001b[31mred\u001b[0m', description: '\u001b[1mbold\u001b[22m' } }],
      },
    })
    const [d] = normalizeClaudeLine(line, 0)
    expect(d!.tool).toMatchObject({ command: 'echo red', subtitle: 'bold', input_summary: 'echo red' })
  })
})

describe('<system-reminder> blocks appended to tool results are removed', () => {
  test('cc-2139-real afc096d0: Read results end with the file, not the malware reminder', () => {
    const raw = linesOf(ORT).filter(({ line }) => line.includes('tool_result') && line.includes('<system-reminder>'))
    expect(raw.length).toBeGreaterThan(10)
    for (const { line, offset } of raw) {
      for (const d of normalizeClaudeLine(line, offset).filter((x) => x.kind === 'tool_result')) {
        expect(d.result!.output_summary ?? '').not.toContain('<system-reminder>')
        expect(d.result!.output_summary ?? '').not.toContain('consider whether it would be considered malware')
      }
    }
  })
  const result = (content: unknown) =>
    normalizeClaudeLine(JSON.stringify({ type: 'user', uuid: 'u', message: { content: [{ type: 'tool_result', tool_use_id: 't', content }] } }), 0)[0]!.result!
      .output_summary
  test('several trailing blocks, and a trailing block in its own content block', () => {
    expect(result('line 1\nline 2\n\n<system-reminder>\na\n</system-reminder>\n<system-reminder>b</system-reminder>\n')).toBe('line 1\nline 2')
    expect(
      result([
        { type: 'text', text: 'out' },
        { type: 'text', text: '<system-reminder>x</system-reminder>' },
      ]),
    ).toBe('out')
  })
  test('a file that only mentions the tag keeps it (not at the end, or not at a line start)', () => {
    expect(result('see <system-reminder>x</system-reminder> here\nmore')).toBe('see <system-reminder>x</system-reminder> here\nmore')
    expect(result('quote: <system-reminder>x</system-reminder>')).toBe('quote: <system-reminder>x</system-reminder>')
  })
})

describe('TaskOutput results are readable: status, exit code, and the end of the output', () => {
  const resultFor = (f: string, toolId: string) => normalizeFile(f).find((d) => d.kind === 'tool_result' && d.result!.for_id === toolId)!.result!
  test('a 17 KB build log: head line, then its verdict (the last lines), capped at 4000 runes', () => {
    const r = resultFor(DOV, 'toolu_0181AEpPhB3QjFAtjUhAp9nK')
    expect(r.ok).toBe(true)
    expect(r.truncated).toBe(true)
    expect(r.output_summary!.split('\n')[0]).toBe('Run SessionLive tests: completed, exit code 0')
    expect(r.output_summary!.endsWith('Finished in 0.9 seconds (0.00s async, 0.9s sync)\n15 tests, 0 failures')).toBe(true)
    expect([...r.output_summary!].length).toBeLessThanOrEqual(4000)
    expect(r.output_summary!.split('\n')[2]).toBe('…')
  })
  test('a wait that timed out: the task still runs', () => {
    const r = resultFor(GQC, 'toolu_01UzVvupiB1fZ78NXnUiPWZE')
    expect(r.output_summary!.split('\n')[0]).toBe('Run resource and renderer tests: still running (stopped waiting)')
    expect(r.output_summary!.endsWith('==> ash\nCompiling 549 files (.ex)')).toBe(true)
  })
  test('without toolUseResult the same facts come from the content tags; a failing exit code is not ok', () => {
    const content =
      '<retrieval_status>success</retrieval_status>\n\n<task_id>b1</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>2</exit_code>\n\n<output>\n' +
      'log\n'.repeat(2000) +
      'FAILED: 3 tests\n</output>'
    const [d] = normalizeClaudeLine(JSON.stringify({ type: 'user', uuid: 'u', message: { content: [{ type: 'tool_result', tool_use_id: 't', content }] } }), 0)
    expect(d!.result!.ok).toBe(false)
    expect(d!.result!.output_summary!.split('\n')[0]).toBe('b1: completed, exit code 2')
    expect(d!.result!.output_summary!.endsWith('log\nFAILED: 3 tests')).toBe(true)
    expect(d!.result!.truncated).toBe(true)
  })
  test('a short output is whole, not truncated', () => {
    const tur = {
      retrieval_status: 'success',
      task: { task_id: 'b2', task_type: 'local_bash', status: 'completed', description: 'Quick check', output: 'all good\n', exitCode: 0 },
    }
    const [d] = normalizeClaudeLine(
      JSON.stringify({
        type: 'user',
        uuid: 'u',
        toolUseResult: tur,
        message: { content: [{ type: 'tool_result', tool_use_id: 't', content: '<retrieval_status>success</retrieval_status>' }] },
      }),
      0,
    )
    expect(d!.result).toEqual({ for_id: 't', ok: true, output_summary: 'Quick check: completed, exit code 0\n\nall good' })
  })
})
