// A minimal MCP server over stdio (newline-delimited JSON-RPC) with one tool, so a capture
// can show Claude Code's permission dialog for an MCP tool. Offline, no dependencies.
// Usage in an --mcp-config: {"mcpServers":{"tracker":{"command":"node","args":["mock-mcp.mjs"]}}}
import readline from 'node:readline'
const tools = [
  {
    name: 'create_issue',
    description: 'Create an issue in the tracker',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title'] },
  },
]
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n')
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m
  try {
    m = JSON.parse(line)
  } catch {
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
  } else if (m.method === 'tools/call') {
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `Created issue #42: ${m.params?.arguments?.title ?? ''}` }] } })
  } else {
    send({ jsonrpc: '2.0', id: m.id, result: {} })
  }
})
