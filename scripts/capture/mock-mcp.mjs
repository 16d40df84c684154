// A minimal MCP server over stdio (newline-delimited JSON-RPC) with one tool, so a capture
// can show Claude Code's permission dialog for an MCP tool. Offline, no dependencies.
// Usage in an --mcp-config: {"mcpServers":{"tracker":{"command":"node","args":["mock-mcp.mjs"]}}}
// With the argument "more" (codex scenarios) it also offers delete_issue (annotated
// destructive) and ask_priority; with "--elicit" (Claude Code scenarios) set_priority. Both
// askers first ask the client for a value through an elicitation request
// (elicitation/create) and answer the tool call with what came back (each in the words its
// recorded fixtures show).
import readline from 'node:readline'
const more = process.argv.includes('more')
const elicit = process.argv.includes('--elicit')
const tools = [
  {
    name: 'create_issue',
    description: 'Create an issue in the tracker',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title'] },
  },
]
if (more) {
  tools.push(
    {
      name: 'delete_issue',
      description: 'Delete an issue from the tracker',
      annotations: { destructiveHint: true, readOnlyHint: false, openWorldHint: true },
      inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    },
    {
      name: 'ask_priority',
      description: 'Ask the user which priority a new issue gets',
      inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
    },
  )
}
if (elicit) {
  tools.push({
    name: 'set_priority',
    description: 'Set the priority of an issue, asking the user which',
    inputSchema: { type: 'object', properties: { issue: { type: 'number' } }, required: ['issue'] },
  })
}
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n')
let nextId = 1000
/** elicitation id → what to do with the client's answer (answer the tool call that asked) */
const waiting = new Map()
/** Asks the client through an elicitation; `answer(result)` then answers the tool call. */
function ask(message, requestedSchema, answer) {
  const id = nextId++
  waiting.set(id, answer)
  send({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message, requestedSchema } })
}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m
  try {
    m = JSON.parse(line)
  } catch {
    return
  }
  if (m.id !== undefined && m.method === undefined) {
    // the client's answer to our elicitation request
    const answer = waiting.get(m.id)
    waiting.delete(m.id)
    answer?.(m.result ?? { action: 'error', error: m.error })
    return
  }
  if (m.id === undefined) return // a notification
  const reply = (text) => send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } })
  if (m.method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id: m.id,
      result: { protocolVersion: m.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tracker', version: '1.0.0' } },
    })
  } else if (m.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: m.id, result: { tools } })
  } else if (m.method === 'tools/call' && m.params?.name === 'ask_priority') {
    ask(
      `Which priority should "${m.params?.arguments?.title ?? ''}" get?`,
      { type: 'object', properties: { priority: { type: 'string', enum: ['high', 'low'] } }, required: ['priority'] },
      (r) => reply(r.action === 'accept' ? `Priority: ${r.content?.priority ?? '?'}` : `No priority given (${r.action})`),
    )
  } else if (m.method === 'tools/call' && m.params?.name === 'set_priority') {
    ask(
      'Which priority should issue #42 get?',
      { type: 'object', properties: { priority: { type: 'string', title: 'Priority', enum: ['low', 'normal', 'high'] } }, required: ['priority'] },
      (r) => reply(r.action === 'accept' ? `Priority set: ${JSON.stringify(r.content ?? {})}` : `The user chose: ${r.action ?? 'nothing'}`),
    )
  } else if (m.method === 'tools/call') {
    const a = m.params?.arguments ?? {}
    reply(m.params?.name === 'delete_issue' ? `Deleted issue #${a.id}` : `Created issue #42: ${a.title ?? ''}`)
  } else {
    send({ jsonrpc: '2.0', id: m.id, result: {} })
  }
})
