// A short Claude Code session, one record of each shape the normalizer builds
// (prompt, thinking, text, Bash/Read/Edit/Write/Grep calls and their results
// with an applied patch, a subagent spawn and its result, a task notification,
// a queued prompt, a local command, bookkeeping): the bridge's warm-up runs it
// while idle after a start so the first page a phone asks for is built by
// compiled code. Its contents are as long as a session's (a 120-line file read
// and edited, a 200-line write, 300 lines of test output): the loops over long
// text (caps, ANSI stripping, diffs) compile only once they have run long
// enough, and with short samples the first pages read after a restart still
// paid for it (nine deep pages of a 100 MB session after a restart, 5 runs:
// 58-66 ms in all after these samples, 70-84 ms after the short ones they
// replaced, 101-145 ms with no warm-up). Made up for that purpose only (never
// a fixture); a test holds every record to being read as modelled (no
// parsed:false) and to its lengths.
const base = {
  cwd: '/home/me/proj',
  sessionId: '00000000-0000-4000-8000-000000000000',
  version: '2.1.332',
  gitBranch: 'main',
  userType: 'external',
  entrypoint: 'cli',
  isSidechain: false,
}
let n = 0
const rec = (r: Record<string, unknown>) => {
  n++
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
  return JSON.stringify({ ...base, parentUuid: null, ...r, uuid: id, timestamp: `2026-12-01T10:00:${String(n).padStart(2, '0')}.000Z` })
}
const assistant = (content: unknown[]) =>
  rec({
    type: 'assistant',
    requestId: 'req_warm',
    message: {
      id: 'msg_warm',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-5',
      content,
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 20 },
    },
  })
const result = (id: string, content: unknown, toolUseResult: unknown) =>
  rec({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] }, toolUseResult })

/** A made-up module of `n` small functions, one line changed when `typed`. */
const moduleText = (n: number, typed: boolean) =>
  Array.from({ length: n }, (_, i) =>
    i === 0
      ? `export function add(a: number, b: number)${typed ? ': number' : ''} {\n  return a + b\n}\n`
      : `export function f${i}(x: number) {\n  // step ${i}: scale, then shift\n  return x * ${i} + ${i % 7}\n}\n`,
  ).join('\n')
const fileBefore = moduleText(30, false)
const fileAfter = moduleText(30, true)
const before = fileBefore.split('\n').slice(0, 12).join('\n')
const after = fileAfter.split('\n').slice(0, 12).join('\n')
const numbered = (text: string) =>
  text
    .split('\n')
    .map((l, i) => `${String(i + 1).padStart(6)}\t${l}`)
    .join('\n')
const written = Array.from({ length: 200 }, (_, i) => `test('f${i} scales and shifts', () => expect(f${i}(2)).toBe(${2 * i + (i % 7)}))`).join('\n')
const testOutput = Array.from({ length: 300 }, (_, i) =>
  i % 50 === 49 ? `\u001b[2msrc/math.test.ts:\u001b[22m` : `\u001b[32m(pass)\u001b[39m f${i} scales and shifts \u001b[2m[0.${(i * 37) % 100}ms]\u001b[22m`,
).join('\n')
const paragraph = (topic: string) =>
  `About ${topic}: the change keeps every caller as it is, since the new annotation only states what the body already returns; the tests cover each exported function once, so a wrong sign or an off-by-one shows at once. `.repeat(
    4,
  )

export const CLAUDE_WARM_UP_LINES: readonly string[] = [
  rec({ type: 'file-history-snapshot', messageId: 'm0', snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false }),
  rec({ type: 'user', message: { role: 'user', content: 'Add a return type to add() in src/math.ts and run the tests.' } }),
  assistant([
    { type: 'thinking', thinking: `Read the file first, then edit it and run the tests. ${paragraph('the plan')}`, signature: 'sig' },
    { type: 'text', text: `I'll look at \`src/math.ts\` first.\n\n${paragraph('the file')}` },
  ]),
  assistant([{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: '/home/me/proj/src/math.ts' } }]),
  result('toolu_read', [{ type: 'text', text: numbered(fileBefore) }], {
    type: 'text',
    file: {
      filePath: '/home/me/proj/src/math.ts',
      content: fileBefore,
      numLines: fileBefore.split('\n').length,
      startLine: 1,
      totalLines: fileBefore.split('\n').length,
    },
  }),
  assistant([
    {
      type: 'tool_use',
      id: 'toolu_edit',
      name: 'Edit',
      input: { file_path: '/home/me/proj/src/math.ts', old_string: before, new_string: after, replace_all: false },
    },
  ]),
  result('toolu_edit', 'The file /home/me/proj/src/math.ts has been updated.', {
    filePath: '/home/me/proj/src/math.ts',
    oldString: before,
    newString: after,
    originalFile: fileBefore,
    structuredPatch: [
      {
        oldStart: 1,
        oldLines: 4,
        newStart: 1,
        newLines: 4,
        lines: [`-${before.split('\n')[0]}`, `+${after.split('\n')[0]}`, '   return a + b', ' }', ' '],
      },
    ],
    userModified: false,
    replaceAll: false,
  }),
  assistant([{ type: 'tool_use', id: 'toolu_write', name: 'Write', input: { file_path: '/home/me/proj/src/math.test.ts', content: written } }]),
  result('toolu_write', 'File created successfully at: /home/me/proj/src/math.test.ts', {
    type: 'create',
    filePath: '/home/me/proj/src/math.test.ts',
    content: written,
    structuredPatch: [],
    originalFile: null,
  }),
  assistant([{ type: 'tool_use', id: 'toolu_grep', name: 'Grep', input: { pattern: 'add\\(', path: 'src', output_mode: 'files_with_matches' } }]),
  result('toolu_grep', 'Found 2 files\nsrc/math.ts\nsrc/math.test.ts', {
    mode: 'files_with_matches',
    filenames: ['src/math.ts', 'src/math.test.ts'],
    numFiles: 2,
  }),
  assistant([{ type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command: 'bun test', description: 'Run the tests' } }]),
  result('toolu_bash', `${testOutput}\n\n 200 pass\n 0 fail`, {
    stdout: `${testOutput}\n\n 200 pass\n 0 fail`,
    stderr: '',
    interrupted: false,
    isImage: false,
  }),
  assistant([
    {
      type: 'tool_use',
      id: 'toolu_agent',
      name: 'Agent',
      input: { description: 'Review the change', prompt: 'Review src/math.ts.', subagent_type: 'general-purpose' },
    },
  ]),
  result('toolu_agent', [{ type: 'text', text: 'Looks right.' }], {
    status: 'completed',
    agentId: 'a0000000000000001',
    content: [{ type: 'text', text: 'Looks right.' }],
    totalDurationMs: 1200,
  }),
  rec({ type: 'queue-operation', operation: 'enqueue', content: 'also update the README' }),
  rec({ type: 'attachment', attachment: { type: 'queued_command', prompt: 'also update the README' } }),
  rec({
    type: 'user',
    message: {
      role: 'user',
      content:
        '<task-notification>\n<task-id>b0000001</task-id>\n<status>completed</status>\n<summary>Background command "bun test --watch" completed</summary>\n</task-notification>',
    },
  }),
  rec({
    type: 'system',
    subtype: 'local_command',
    content: '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>',
    level: 'info',
  }),
  assistant([{ type: 'text', text: `Done: \`add()\` now declares its return type and the tests pass.\n\n${paragraph('the result')}` }]),
  rec({ type: 'last-prompt', lastPrompt: 'also update the README' }),
]
