// A minimal MCP server over stdio (newline-delimited JSON-RPC) with one tool, so a capture
// can show Claude Code's permission dialog for an MCP tool. Offline, no dependencies.
// Usage in an --mcp-config: {"mcpServers":{"tracker":{"command":"node","args":["mock-mcp.mjs"]}}}
// With "--elicit" a second tool, set_priority, first asks the user through an MCP
// elicitation (elicitation/create) and answers with what the user gave.
import readline from 'node:readline'
const elicit = process.argv.includes('--elicit')
const tools = [
  {
    name: 'create_issue',
    description: 'Create an issue in the tracker',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title'] },
  },
]
if (elicit) {
  tools.push({
    name: 'set_priority',
    description: 'Set the priority of an issue, asking the user which',
    inputSchema: { type: 'object', properties: { issue: { type: 'number' } }, required: ['issue'] },
  })
}
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n')
const waiting = new Map() // elicitation id → the tools/call id it answers
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m
  try {
    m = JSON.parse(line)
  } catch {
    return
  }
  if (m.id === undefined) return // a notification
  if (!m.method) {
    // the client's answer to our elicitation: now answer the tool call
    const call = waiting.get(m.id)
    if (call === undefined) return
    waiting.delete(m.id)
    const r = m.result ?? {}
    const text = r.action === 'accept' ? `Priority set: ${JSON.stringify(r.content ?? {})}` : `The user chose: ${r.action ?? 'nothing'}`
    send({ jsonrpc: '2.0', id: call, result: { content: [{ type: 'text', text }] } })
    return
  }
  if (m.method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id: m.id,
      result: { protocolVersion: m.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tracker', version: '1.0.0' } },
    })
  } else if (m.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: m.id, result: { tools } })
  } else if (m.method === 'tools/call' && m.params?.name === 'set_priority') {
    const id = `elicit-${m.id}`
    waiting.set(id, m.id)
    send({
      jsonrpc: '2.0',
      id,
      method: 'elicitation/create',
      params: {
        message: 'Which priority should issue #42 get?',
        requestedSchema: {
          type: 'object',
          properties: { priority: { type: 'string', title: 'Priority', enum: ['low', 'normal', 'high'] } },
          required: ['priority'],
        },
      },
    })
  } else if (m.method === 'tools/call') {
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `Created issue #42: ${m.params?.arguments?.title ?? ''}` }] } })
  } else {
    send({ jsonrpc: '2.0', id: m.id, result: {} })
  }
})
