// Scripted stand-in for the Anthropic Messages API, for driving a real Claude Code
// TUI offline on loopback. Each main-loop request (one that carries tools) gets the
// next step of the scenario; side requests (titles, summaries) get a short text.
// Usage: node mock-anthropic.mjs PORT SCENARIO.json [LOGFILE]
// Copied from the shared capture tools, plus error steps: a main step
// {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}, "repeat": N}
// answers the next N main requests with that HTTP error (Claude Code retries), then moves on.
// A main step {"usage": {"input_tokens": N}, "blocks": [...]} reports that usage (a nearly
// full context window brings the "Context low" notice and the plan review's "clear context").
import http from 'node:http'
import fs from 'node:fs'

const port = Number(process.argv[2] || 8799)
const scenario = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))
const logFile = process.argv[4]
let step = 0
let idn = 0
const log = (m) => logFile && fs.appendFileSync(logFile, m + '\n')

function blocksFor(stepDef) {
  return stepDef.map((b) => {
    if (b.text !== undefined) return { type: 'text', text: b.text }
    if (b.thinking !== undefined) return { type: 'thinking', thinking: b.thinking, signature: 'sig' + ++idn }
    return { type: 'tool_use', id: b.id || `toolu_mock${String(++idn).padStart(6, '0')}`, name: b.tool, input: b.input }
  })
}

// pause: optional {after: N, ms: M} — stream the first N blocks, then hold the stream open M ms
// before the rest (lets a test interrupt a half-streamed answer).
async function sse(res, blocks, model, pause, usage) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  ev('message_start', {
    message: {
      id: 'msg_mock' + ++idn,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...usage },
    },
  })
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]
    if (pause && i === pause.after) {
      await new Promise((r) => setTimeout(r, pause.ms))
      if (res.destroyed) return log('  (client went away mid-stream)')
    }
    if (b.type === 'text') {
      ev('content_block_start', { index: i, content_block: { type: 'text', text: '' } })
      ev('content_block_delta', { index: i, delta: { type: 'text_delta', text: b.text } })
    } else if (b.type === 'thinking') {
      ev('content_block_start', { index: i, content_block: { type: 'thinking', thinking: '', signature: '' } })
      ev('content_block_delta', { index: i, delta: { type: 'thinking_delta', thinking: b.thinking } })
      ev('content_block_delta', { index: i, delta: { type: 'signature_delta', signature: b.signature } })
    } else {
      ev('content_block_start', { index: i, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } })
      ev('content_block_delta', { index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } })
    }
    ev('content_block_stop', { index: i })
  }
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 42 } })
  ev('message_stop', {})
  res.end()
}

const server = http.createServer((req, res) => {
  let body = ''
  req.on('data', (c) => (body += c))
  req.on('end', async () => {
    log(`${req.method} ${req.url} ${body.length}`)
    if (!req.url.startsWith('/v1/messages')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end('{}')
    }
    let j = {}
    try {
      j = JSON.parse(body)
    } catch {}
    if (req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ input_tokens: 100 }))
    }
    const model = j.model || 'claude-sonnet-4-5'
    const isMain = Array.isArray(j.tools) && j.tools.length > 0
    if (isMain && process.env.MOCK_LOG_TOOLS) log(`  tools: ${j.tools.map((t) => t.name).join(',')}`)
    if (process.env.MOCK_DUMP_DIR) fs.writeFileSync(`${process.env.MOCK_DUMP_DIR}/req-${Date.now()}-${++idn}.json`, body)
    let blocks, pause, usage
    if (isMain) {
      // A subagent request (its system prompt differs) takes from the subagent queue when present.
      // A subagent's conversation opens with the prompt its spawner wrote.
      const firstUser = JSON.stringify(j.messages?.[0] ?? '')
      const sub = (scenario.subagents || []).find((s) => firstUser.includes(s.match))
      if (sub) {
        sub.i = sub.i || 0
        const sdef = sub.steps[Math.min(sub.i++, sub.steps.length - 1)]
        if (sdef.delayMs) await new Promise((r) => setTimeout(r, sdef.delayMs))
        blocks = blocksFor(sdef.blocks || sdef)
      } else {
        const def = scenario.steps[step] || [{ text: scenario.idleText || 'Nothing more to do.' }]
        if (def.error) {
          def.served = (def.served || 0) + 1
          if (def.served >= (def.repeat || 1)) step++
          log(`  -> main step ${step} error ${def.error.status} (${def.served}/${def.repeat || 1})`)
          if (def.delayMs) await new Promise((r) => setTimeout(r, def.delayMs))
          res.writeHead(def.error.status || 500, { 'content-type': 'application/json' })
          return res.end(
            JSON.stringify({ type: 'error', error: { type: def.error.type || 'api_error', message: def.error.message || 'Internal server error' } }),
          )
        }
        step++
        if (def.delayMs) await new Promise((r) => setTimeout(r, def.delayMs))
        if (def.pauseAfter !== undefined) pause = { after: def.pauseAfter, ms: def.pauseMs || 30000 }
        usage = def.usage
        blocks = blocksFor(def.blocks || def)
      }
      log(`  -> ${sub ? `sub ${sub.match} step ${sub.i}` : `main step ${step}`} ${JSON.stringify(blocks).slice(0, 200)}`)
    } else {
      blocks = [{ type: 'text', text: scenario.sideText || 'Mock session' }]
    }
    // "{{PLAN_FILE}}" in a tool input becomes the plan file path Claude Code announced
    // in this request (plan mode names it with a random slug).
    const planFile = body.match(/\/[^\s"\\]*\/\.claude\/plans\/[^\s"\\]+?\.md/)?.[0]
    if (planFile) for (const b of blocks) if (b.type === 'tool_use') b.input = JSON.parse(JSON.stringify(b.input).replaceAll('{{PLAN_FILE}}', planFile))
    if (res.destroyed || res.socket?.destroyed) {
      log('  (client went away; not answering)')
      return
    }
    if (j.stream) return sse(res, blocks, model, pause, usage)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        id: 'msg_mock' + ++idn,
        type: 'message',
        role: 'assistant',
        model,
        content: blocks,
        stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 20, ...usage },
      }),
    )
  })
})
server.listen(port, '127.0.0.1', () => log(`listening ${port}`))
