// What the codex rollouts of the corpus say once normalized: the chat a phone shows.
import { describe, expect, test } from 'bun:test'
import type { Draft } from '../../../../src/transcript/entry'
import { codexFileFold } from '../../../../src/transcript/kinds/codex/file-fold'
import { normalizeCodexLine, patchFiles } from '../../../../src/transcript/kinds/codex/normalize'
import { codexCorpusFiles, SHAPE_SEEDS } from './fuzz'
import { linesOf } from '../../../support/fuzz'

/** A rollout's drafts read start to end as the index pass and the tail do: each line folded, then normalized and amended. */
function drafts(scenario: string, nth = 0): Draft[] {
  const file = codexCorpusFiles().filter((f) => f.includes(`/${scenario}/`))[nth]!
  const facts = codexFileFold.fresh()
  return linesOf(file).flatMap(({ line, offset }) => {
    codexFileFold.fold(line, offset, facts)
    return codexFileFold.amend!(normalizeCodexLine(line, offset), offset, facts)
  })
}
const brief = (d: Draft) =>
  d.kind === 'tool_call'
    ? `call ${d.tool!.id} ${d.tool!.name}`
    : d.kind === 'tool_result'
      ? `result ${d.result!.for_id} ${d.result!.ok}`
      : `${d.role} ${d.kind}: ${d.text}`

describe('corpus rollouts', () => {
  test('interrupt: failing command, interrupted command whose result lands after later turns, interrupted stream', () => {
    expect(drafts('codex-interrupt').map(brief)).toEqual([
      'user message: show the config file',
      'assistant message: Reading the config file.',
      'call call_mock000002 exec_command',
      'result call_mock000002 false',
      'assistant message: There is no config.yml in this folder: `cat` exited with code 1 (No such file or directory).',
      'user message: run the long job',
      'assistant message: Starting the long job; it runs for a minute.',
      'call call_mock000010 exec_command',
      'result call_mock000010 false',
      'system message: Conversation interrupted',
      'user message: explain the project instead',
      'assistant thinking: **Explaining the layout**\n\nThe folder only holds a notes file; describe it briefly.',
      'assistant message: The project is tiny: it holds one notes file with two TODO items.',
      'system message: Conversation interrupted',
      'user message: never mind, just say ok',
      'assistant message: OK.',
      // the background command finished a minute later, same call id: the model and the user
      // were told it was aborted, so it stays a failure, its output kept
      'result call_mock000010 false',
    ])
    const d = drafts('codex-interrupt')
    expect(d[2].tool).toMatchObject({ command: 'cat config.yml', input_summary: 'cat config.yml' })
    expect(d[3].result).toEqual({ for_id: 'call_mock000002', ok: false, output_summary: 'cat: config.yml: No such file or directory' })
    expect(d[8].result).toEqual({ for_id: 'call_mock000010', ok: false, output_summary: 'aborted by user' })
    expect(d[16].result).toEqual({ for_id: 'call_mock000010', ok: false, output_summary: 'Finished after it was aborted:\njob-done' })
    // ids are unique and stable (record id + byte offset + block)
    expect(new Set(d.map((x) => x.id)).size).toBe(d.length)
    expect(d.every((x) => typeof x.ts === 'string')).toBe(true)
  })

  test('approval: the escalated command keeps its justification; the rejected one is "aborted by user"', () => {
    const d = drafts('codex-approval')
    const call = d.find((x) => x.kind === 'tool_call')!
    expect(call.tool).toMatchObject({
      name: 'exec_command',
      command: 'mkdir -p build && date -u +%F > build/stamp.txt && cat build/stamp.txt',
      subtitle: "Allow creating build/stamp.txt with today's date?",
    })
    const results = d.filter((x) => x.kind === 'tool_result').map((x) => x.result)
    expect(results).toEqual([
      { for_id: call.tool!.id, ok: true, output_summary: '2026-12-02' },
      { for_id: expect.any(String), ok: false, output_summary: 'aborted by user' },
    ])
    // one result per call: the model's copy ("Chunk ID … Process exited with code 0") is not repeated
    expect(d.filter((x) => x.kind === 'tool_result' && x.result!.for_id === call.tool!.id)).toHaveLength(1)
    // injected context (environment, permissions, <turn_aborted>) is never shown as the user's words
    for (const x of d.filter((x) => x.role === 'user' && x.kind === 'message')) expect(x.text).not.toMatch(/^</)
  })

  test('patch: the call previews the patch, the result carries the applied diff; a rejected patch fails', () => {
    const d = drafts('codex-patch')
    const calls = d.filter((x) => x.kind === 'tool_call')
    expect(calls.map((c) => [c.tool!.name, c.tool!.file, c.tool!.input_summary])).toEqual([
      ['apply_patch', 'hello.py', 'A hello.py'],
      ['apply_patch', 'hello.py', 'M hello.py'],
      ['apply_patch', 'hello.py', 'M hello.py'],
      ['apply_patch', 'README.md', 'A README.md'],
    ])
    expect(calls[0].tool!.diff).toBe(
      '@@ -0,0 +1,6 @@\n+def greet(name):\n+    return "Hello, " + name\n+\n+\n+if __name__ == "__main__":\n+    print(greet("world"))',
    )
    const results = d.filter((x) => x.kind === 'tool_result')
    expect(results[2].result).toEqual({
      for_id: calls[2].tool!.id,
      ok: true,
      output_summary: 'Success. Updated the following files:\nM hello.py',
      diff: '@@ -5,2 +5,2 @@\n if __name__ == "__main__":\n-    print(greet("world"))\n+    print(greet("codex"))',
    })
    expect(results[3].result).toEqual({ for_id: calls[3].tool!.id, ok: false, output_summary: 'aborted by user after 1.5s' })
    expect(results).toHaveLength(4)
  })

  test('plan: update_plan as the checklist, request_user_input and its answer, the proposed plan', () => {
    const d = drafts('codex-plan')
    const plans = d.filter((x) => x.kind === 'tool_call' && x.tool!.name === 'update_plan').map((x) => [x.tool!.title, x.tool!.input_summary])
    expect(plans[0]).toEqual(['Updated Plan · 0/3 complete', '□ Create greet.sh (in progress) · □ Add test_greet.sh · □ Run the test'])
    expect(plans[plans.length - 1]).toEqual(['Updated Plan · 3/3 complete', '✔ Create greet.sh · ✔ Add test_greet.sh · ✔ Run the test'])
    const ask = d.find((x) => x.kind === 'tool_call' && x.tool!.name === 'request_user_input')!
    expect(ask.tool!.input_summary).toBe('What should the greeting function be called?')
    const answer = d.find((x) => x.kind === 'tool_result' && x.result!.for_id === ask.tool!.id)!
    expect(answer.result).toEqual({ for_id: ask.tool!.id, ok: true, output_summary: 'new_name: greet_user' })
    const proposed = d.find((x) => x.kind === 'message' && x.text!.startsWith('**Proposed Plan**'))!
    expect(proposed.text).toBe(
      '**Proposed Plan**\n\n# Rename greet to greet_user\n\n1. Rename the function and its call in greet.sh.\n2. Run test_greet.sh to confirm the output is unchanged.',
    )
    // codex's own "Implement the plan." is a user message like any other
    expect(d.some((x) => x.role === 'user' && x.text === 'Implement the plan.')).toBe(true)
  })

  test('error: the failed turn says why, as a system entry', () => {
    const d = drafts('codex-error')
    expect(d.filter((x) => x.role === 'system').map((x) => x.text)).toEqual(['Error: stream disconnected before completion: The mock model is overloaded.'])
  })

  test('yield: a command still running when the model moved on has one result, when it ended', () => {
    const d = drafts('codex-yield')
    const call = d.find((x) => x.kind === 'tool_call')!
    const results = d.filter((x) => x.kind === 'tool_result' && x.result!.for_id === call.tool!.id)
    expect(results.map((r) => r.result)).toEqual([{ for_id: call.tool!.id, ok: true, output_summary: 'slow-done' }])
    // it comes after the turn's answer
    expect(d.indexOf(results[0])).toBeGreaterThan(d.findIndex((x) => x.text === "The job is still running; I'll check back."))
  })

  test('exec approvals: simple, heredoc, compound, a tty command and the write_stdin typing into it, a rejection', () => {
    const d = drafts('codex-exec-approvals')
    expect(d.filter((x) => x.kind === 'tool_call' || x.kind === 'tool_result').map(brief)).toEqual([
      'call call_mock000002 exec_command',
      'result call_mock000002 true',
      'call call_mock000008 exec_command',
      'result call_mock000008 true',
      'call call_mock000012 exec_command',
      'result call_mock000012 true',
      'call call_mock000016 exec_command',
      // what was typed into the running command, with its Enter; the command's own result says what came of it
      'call call_mock000020 write_stdin',
      'result call_mock000016 true',
      'call call_mock000026 exec_command',
      'result call_mock000026 false',
    ])
    const typed = d.find((x) => x.tool?.name === 'write_stdin')!
    expect(typed.tool!.input_summary).toMatch(/^session \d+: "codex\\n"$/)
    const tty = d.find((x) => x.kind === 'tool_result' && x.result!.for_id === 'call_mock000016')!
    expect(tty.result!.output_summary).toBe('name? codex\nhello codex')
    expect(d.find((x) => x.tool?.id === 'call_mock000008')!.tool!.command).toBe("cat > notes.txt <<'EOF'\nfirst line\nsecond line\nEOF\nwc -l notes.txt")
    expect(d.find((x) => x.kind === 'tool_result' && x.result!.for_id === 'call_mock000026')!.result).toEqual({
      for_id: 'call_mock000026',
      ok: false,
      output_summary: 'aborted by user',
    })
  })

  test('patch approvals: add/update/delete and a move; a refused and a sandbox-stopped command fail; a rejected patch fails', () => {
    const d = drafts('codex-patch-approvals')
    const DOCS = 'docs' // the patch's folder (spelled apart: not a citation of this repo's docs)
    const calls = d.filter((x) => x.kind === 'tool_call').map((c) => c.tool!.input_summary)
    expect(calls).toEqual([
      `A ${DOCS}/usage.md, M greet.py, D old.txt`,
      `M notes.txt → ${DOCS}/notes.md`,
      'M greet.py',
      'python3 greet.py > out.txt',
      'python3 greet.py > out.txt',
      'A CHANGELOG.md',
    ])
    const results = d.filter((x) => x.kind === 'tool_result').map((x) => x.result!)
    expect(results.map((r) => [r.for_id, r.ok])).toEqual([
      ['call_mock000002', true],
      ['call_mock000008', true],
      ['call_mock000012', true],
      // the harness refused the arguments: the command never ran
      ['call_mock000016', false],
      // the read-only sandbox stopped it: codex writes no CommandExecution item, the model's output is the only result
      ['call_mock000020', false],
      ['call_mock000026', false],
    ])
    expect(results[3].output_summary).toMatch(/^`justification` requires an explicit `sandbox_permissions`/)
    expect(results[4].output_summary).toBe('/bin/bash: line 1: out.txt: Read-only file system')
    expect(results[5].output_summary).toMatch(/^aborted by user after /)
  })

  test('permissions: request_permissions asks for network and a folder; declined is a failure, a grant says what and for how long', () => {
    const d = drafts('codex-permissions')
    const calls = d.filter((x) => x.kind === 'tool_call').map((c) => [c.tool!.name, c.tool!.input_summary, c.tool!.subtitle])
    expect(calls).toEqual([
      ['request_permissions', 'network; write /tmp/gothalo-capture/codex-permissions/proj/../reports', 'Write the report to ../reports and fetch the template'],
      ['request_permissions', 'write /tmp/gothalo-capture/codex-permissions/proj/../reports', 'Write the report to ../reports'],
    ])
    expect(d.filter((x) => x.kind === 'tool_result').map((x) => x.result)).toEqual([
      { for_id: 'call_mock000002', ok: false, output_summary: 'No permissions granted' },
      { for_id: 'call_mock000008', ok: true, output_summary: 'Granted for the session: write /tmp/gothalo-capture/codex-permissions/reports' },
    ])
  })

  test('queue: two approved commands in one step; two questions answered; the same tool refused in Default mode fails', () => {
    const d = drafts('codex-queue')
    expect(d.filter((x) => x.kind === 'tool_result').map((x) => [x.result!.for_id, x.result!.ok, x.result!.output_summary ?? ''])).toEqual([
      ['call_mock000002', true, ''],
      ['call_mock000004', true, ''],
      ['call_mock000012', true, 'layout: src/ (Recommended)\ntests: unittest'],
      ['call_mock000018', false, 'request_user_input is unavailable in Default mode'],
    ])
  })

  test('mcp: an MCP call whose approval the user cancelled is a failure; answered and allowed ones succeed', () => {
    const d = drafts('codex-mcp')
    expect(d.filter((x) => x.kind === 'tool_result').map((x) => [x.tool?.name, x.result!.for_id, x.result!.ok, x.result!.output_summary])).toEqual([
      [undefined, 'call_mock000008', true, 'Priority: low'],
      [undefined, 'call_mock000012', false, 'user cancelled MCP tool call'],
      [undefined, 'call_mock000016', true, 'Deleted issue #7'],
    ])
  })

  test('resume: the resumed turn is appended to the old file, no second header, no repeats', () => {
    const d = drafts('codex-resume', 0)
    expect(d.filter((x) => x.kind === 'message').map((x) => `${x.role}: ${x.text}`)).toEqual([
      'user: remember the number 42',
      "assistant: Noted: I'll remember 42.",
      'user: what number did I ask you to remember?',
      'assistant: You asked me to remember 42.',
    ])
  })
})

describe('shapes the corpus does not show', () => {
  const one = (needle: string) => normalizeCodexLine(SHAPE_SEEDS.find((l) => l.includes(needle))!, 100)
  test('legacy shell argv is unwrapped; JSON output gives ok from exit_code', () => {
    expect(one('"name":"shell"')[0].tool).toMatchObject({ name: 'shell', command: 'ls -la' })
    expect(one('"call_id":"c_shell","output"')[0].result).toEqual({ for_id: 'c_shell', ok: false, output_summary: 'a\nb\n' })
    expect(one('"call_id":"c_sc","output"')[0].result).toEqual({ for_id: 'c_sc', ok: false, output_summary: 'fatal: not a git repository' })
  })
  test('a move and a delete in one patch: headers per file', () => {
    const call = one('c_ap')[0].tool!
    expect(call.input_summary).toBe('M a.txt → b.txt, D old.txt')
    expect(call.diff).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n--- a/old.txt\n+++ /dev/null')
    expect(patchFiles('garbage')).toEqual([])
  })
  test('write_stdin: a poll is dropped, typing into the command is a call', () => {
    expect(one('c_poll')).toEqual([])
    expect(one('c_ws')[0].tool).toMatchObject({ name: 'write_stdin', input_summary: 'session 12630: "y\\n"' })
  })
  test('declined and refused calls are failures, whatever their text', () => {
    const out = (output: string) =>
      normalizeCodexLine(
        JSON.stringify({ timestamp: '2026-12-02T16:00:10.000Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c', output } }),
        1,
      )[0].result!.ok
    for (const text of [
      'exec command rejected by user',
      'patch rejected by user',
      'writing is blocked by read-only sandbox; rejected by user approval settings',
      'failed to parse function arguments: expected value at line 1 column 1',
      'unknown process id 12',
      'write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true',
      'apply_patch verification failed: Failed to find expected lines',
      'Wall time: 0.4 seconds\naborted by user',
    ])
      expect([text, out(text)]).toEqual([text, false])
    expect(out('Plan updated')).toBe(true)
    // a failing command that is not a sandbox denial has its item: the model's copy is dropped
    expect(
      normalizeCodexLine(
        JSON.stringify({
          timestamp: '2026-12-02T16:00:10.000Z',
          type: 'response_item',
          payload: {
            type: 'function_call_output',
            call_id: 'c',
            output: 'Chunk ID: a\nWall time: 0.0 seconds\nProcess exited with code 1\nOutput:\ncat: x: No such file or directory\n',
          },
        }),
        1,
      ),
    ).toEqual([])
  })
  test('images are attachments; injected context and developer text are dropped', () => {
    expect(one('look at this').map((d) => [d.kind, d.text])).toEqual([
      ['message', 'look at this'],
      ['attachment', '[image]'],
    ])
    expect(one('<environment_context>')).toEqual([])
    expect(one('# AGENTS.md')).toEqual([])
    expect(one('"role":"developer"')).toEqual([])
  })
  test('reasoning falls back to raw content; encrypted-only reasoning is dropped', () => {
    expect(one('raw thoughts')[0]).toMatchObject({ kind: 'thinking', text: 'raw thoughts' })
    expect(one('gAAAA')).toEqual([])
  })
  test('a "!" command the user ran: call and result from the one item', () => {
    const d = normalizeCodexLine(SHAPE_SEEDS.find((l) => l.includes('user_shell'))!, 5)
    expect(d.map((x) => [x.role, x.kind])).toEqual([
      ['user', 'tool_call'],
      ['user', 'tool_result'],
    ])
    expect(d[0].tool).toMatchObject({ id: 'c_us', command: 'ls' })
    expect(d[1].result).toEqual({ for_id: 'c_us', ok: true, output_summary: 'a' })
  })
  test('a failed file change keeps its stderr and the per-file diff (move and delete)', () => {
    const r = normalizeCodexLine(SHAPE_SEEDS.find((l) => l.includes('c_fc'))!, 5)[0].result!
    expect(r.ok).toBe(false)
    expect(r.output_summary).toBe('permission denied')
    expect(r.diff).toBe('--- a//p/a.txt → /p/b.txt\n+++ b//p/a.txt → /p/b.txt\n@@ -1 +1 @@\n-a\n+b\n--- a//p/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone')
  })
  test('system entries: compaction, errors, replaced turns, rollbacks; unknown events are dropped', () => {
    expect(['compacted', '401 Unauthorized', 'replaced', 'thread_rolled_back'].map((n) => one(n)[0].text)).toEqual([
      'Context compacted\n\nsummary of the work so far',
      'Error: unexpected status 401 Unauthorized',
      'Turn aborted (replaced)',
      'Rolled back 2 turns',
    ])
    expect(one('some_future_event')).toEqual([])
  })
})

describe('a command aborted by an interrupt', () => {
  const read = (file: string, facts = codexFileFold.fresh(), foldFirst = false) => {
    const lines = linesOf(file)
    if (foldFirst) for (const { line, offset } of lines) codexFileFold.fold(line, offset, facts)
    return lines.map(({ line, offset }) => {
      if (!foldFirst) codexFileFold.fold(line, offset, facts)
      return codexFileFold.amend!(normalizeCodexLine(line, offset), offset, facts)
    })
  }

  test('card4 (0.171.0): both interrupted commands read "aborted by user", ok:false; nothing else changes', () => {
    const file = codexCorpusFiles().find((f) => f.includes('/codex-card4/'))!
    const d = read(file).flat()
    expect(d.filter((x) => x.kind === 'tool_result').map((x) => x.result)).toEqual([
      { for_id: 'call_mock000002', ok: false, output_summary: 'aborted by user' },
      { for_id: 'call_mock000008', ok: false, output_summary: 'aborted by user' },
    ])
    // the amendment touches only results of an aborted call after its abort
    expect(d).toEqual(linesOf(file).flatMap(({ line, offset }) => normalizeCodexLine(line, offset)))
  })

  test('a page read from the middle (facts over the whole file, or restored from the cache) gives every line the drafts a read from the start gave', () => {
    for (const file of codexCorpusFiles()) {
      const fromStart = read(file)
      expect(read(file, codexFileFold.fresh(), true)).toEqual(fromStart)
      const whole = codexFileFold.fresh()
      for (const { line, offset } of linesOf(file)) codexFileFold.countAndFold(line, offset, whole)
      const restored = codexFileFold.load(JSON.parse(JSON.stringify(codexFileFold.save(whole))))!
      expect(read(file, restored, true)).toEqual(fromStart)
    }
    // and the interrupt's late result is the amended one on each path
    const file = codexCorpusFiles().find((f) => f.includes('/codex-interrupt/'))!
    expect(read(file, codexFileFold.fresh(), true).flat().at(-1)!.result).toMatchObject({ for_id: 'call_mock000010', ok: false })
  })

  test('only a success after the abort is amended, and a finished command that was never aborted keeps ok:true', () => {
    const at = new Map([['c1', 100]])
    const result = (forId: string, ok: boolean, out?: string) => ({
      id: 'x',
      role: 'user' as const,
      kind: 'tool_result' as const,
      result: { for_id: forId, ok, ...(out ? { output_summary: out } : {}) },
      parsed: true,
    })
    const facts = { usage: codexFileFold.fresh().usage, abortedAt: at }
    expect(codexFileFold.amend!([result('c1', true, 'done')], 100, facts)[0].result).toEqual({ for_id: 'c1', ok: true, output_summary: 'done' })
    expect(codexFileFold.amend!([result('c1', true)], 101, facts)[0].result).toEqual({
      for_id: 'c1',
      ok: false,
      output_summary: 'Finished after it was aborted',
    })
    expect(codexFileFold.amend!([result('c2', true, 'done')], 101, facts)[0].result).toEqual({ for_id: 'c2', ok: true, output_summary: 'done' })
    // a failure after the abort (or the call id aborted again) already reads as it should
    expect(codexFileFold.amend!([result('c1', false, 'aborted by user')], 101, facts)[0].result).toEqual({
      for_id: 'c1',
      ok: false,
      output_summary: 'aborted by user',
    })
  })

  test("facts that are not the fold's are refused (the file is re-indexed)", () => {
    const usage = codexFileFold.save(codexFileFold.fresh()) as { usage: unknown }
    expect(codexFileFold.load({ usage: usage.usage, aborted: [['c1', 'x']] })).toBeUndefined()
    expect(codexFileFold.load({ usage: usage.usage })).toBeUndefined()
    expect(codexFileFold.load(null)).toBeUndefined()
    expect(codexFileFold.load({ usage: usage.usage, aborted: [['c1', 7]] })!.abortedAt).toEqual(new Map([['c1', 7]]))
  })
})
