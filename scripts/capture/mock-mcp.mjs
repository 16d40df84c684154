// A minimal MCP server over stdio (newline-delimited JSON-RPC) with one tool, so a capture
// can show Claude Code's permission dialog for an MCP tool. Offline, no dependencies.
// Usage in an --mcp-config: {"mcpServers":{"tracker":{"command":"node","args":["mock-mcp.mjs"]}}}
// With the argument "more" (codex scenarios) it also offers delete_issue (annotated
// destructive) and ask_priority, whose call first asks the client for a value through an
// elicitation request (elicitation/create) and answers with what came back.
import readline from 'node:readline'
const more = process.argv.includes('more')
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
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n')
let nextId = 1000
const waiting = new Map()
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m
  try {
    m = JSON.parse(line)
  } catch {
    return
  }
  if (m.id !== undefined && m.method === undefined && waiting.has(m.id)) {
    // the client's answer to our elicitation request
    waiting.get(m.id)(m.result ?? { action: 'error', error: m.error })
    waiting.delete(m.id)
    return
  }
  if (m.id === undefined) return // a notification
  if (m.method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id: m.id,
      result: { protocolVersion: m.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tracker', version: '1.0.0' } },
    })
  } else if (m.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: m.id, result: { tools } })
  } else if (m.method === 'tools/call' && m.params?.name === 'ask_priority') {
    const id = nextId++
    waiting.set(id, (answer) => {
      const text = answer.action === 'accept' ? `Priority: ${answer.content?.priority ?? '?'}` : `No priority given (${answer.action})`
      send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } })
    })
    send({
      jsonrpc: '2.0',
      id,
      method: 'elicitation/create',
      params: {
        message: `Which priority should "${m.params?.arguments?.title ?? ''}" get?`,
        requestedSchema: { type: 'object', properties: { priority: { type: 'string', enum: ['high', 'low'] } }, required: ['priority'] },
      },
    })
  } else if (m.method === 'tools/call') {
    const a = m.params?.arguments ?? {}
    const text = m.params?.name === 'delete_issue' ? `Deleted issue #${a.id}` : `Created issue #42: ${a.title ?? ''}`
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } })
  } else {
    send({ jsonrpc: '2.0', id: m.id, result: {} })
  }
})
