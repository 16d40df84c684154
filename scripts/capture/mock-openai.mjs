// Scripted stand-in for the OpenAI Responses API (POST /v1/responses, streamed as SSE),
// for driving the real Codex CLI TUI offline on loopback. Each main request gets the next
// step of the scenario; side requests get a short text. Other paths answer 404 (logged).
// Usage: node mock-openai.mjs PORT SCENARIO.json [LOGFILE]   (MOCK_LOG_TOOLS=1 logs the tool names
// offered, MOCK_DUMP_DIR=DIR writes every request to DIR)
// Copied from the shared capture tools (mockmodel/openai.mjs); used for Codex CLI scenarios.
//
// Main requests carry tools and come from the user's thread (x-codex-turn-metadata
// thread_source "user", no JSON output schema). Side requests (the "thread_title" thread that names the session, asking for JSON {title})
// get sideTexts[i] in turn, then sideText.
// Scenario: {"steps": [STEP, ...], "sideText"?, "sideTexts"?, "idleText"?}. A STEP is an array of blocks
// or {"blocks": [...], "delayMs"?, "pauseAfter"?, "pauseMs"?, "chunkMs"?, "failed"?}:
//   {"text": "..."[, "phase": "commentary"|"final_answer"|null]}  assistant message; phase
//        defaults to "commentary" when the step also calls a tool, else "final_answer"
//   {"reasoning": "**Title**\n\nbody"} (alias {"thinking"})  reasoning item whose summary
//        is the text; add "raw": true to send it as reasoning content instead of a summary
//   {"tool": NAME, "input": ..., "id"?}  a tool call. If the request declared NAME as a
//        freeform ("custom") tool (codex's apply_patch), a custom_tool_call is sent and the
//        input must be the raw string; otherwise a function_call with input as JSON arguments
//        (a string input is passed through as the arguments text).
// delayMs: wait after response.created before the first item (spinner time).
// pauseAfter K / pauseMs M: send the first K blocks, then hold the stream M ms (30 s default)
//        before the rest, so a test can interrupt a half-streamed answer.
// chunkMs: stream text/reasoning deltas word by word with this delay between words.
// failed: {"code","message"} ends the response with response.failed instead of completed.
// "{{SESSION_ID}}" anywhere in a tool input becomes the newest running command's session id
// (from "Process running with session ID N" in the request), e.g. for write_stdin.
import http from 'node:http'
import fs from 'node:fs'
import zlib from 'node:zlib'

const port = Number(process.argv[2] || 8899)
const scenario = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))
const logFile = process.argv[4]
const log = (m) => logFile && fs.appendFileSync(logFile, m + '\n')
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
let step = 0
let sideN = 0
let idn = 0
const nextId = (p) => `${p}_mock${String(++idn).padStart(6, '0')}`

// Which tool names the request declared as freeform (type "custom"); namespaces nest tools.
function customToolNames(tools) {
  const names = new Set()
  const walk = (list) => {
    for (const t of list || []) {
      if (t.type === 'custom') names.add(t.name)
      if (t.type === 'namespace') walk(t.tools)
    }
  }
  walk(tools)
  return names
}

function toolNames(tools) {
  return (tools || []).map((t) => (t.type === 'namespace' ? `${t.name}{${t.tools.map((x) => x.name).join(',')}}` : t.name || t.type)).join(',')
}

function itemsFor(blocks, custom) {
  const hasTool = blocks.some((b) => b.tool !== undefined || b.toolSearch !== undefined)
  return blocks.map((b) => {
    if (b.text !== undefined) {
      const phase = b.phase === undefined ? (hasTool ? 'commentary' : 'final_answer') : b.phase
      const item = {
        type: 'message',
        id: nextId('msg'),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: b.text, annotations: [] }],
      }
      if (phase) item.phase = phase
      return item
    }
    const r = b.reasoning ?? b.thinking
    if (r !== undefined) {
      const item = { type: 'reasoning', id: nextId('rs'), summary: [], encrypted_content: 'mock-encrypted-' + idn }
      if (b.raw) item.content = [{ type: 'reasoning_text', text: r }]
      else item.summary = [{ type: 'summary_text', text: r }]
      return item
    }
    if (b.toolSearch !== undefined) {
      // codex's client-side tool search (MCP tools are deferred behind it)
      return {
        type: 'tool_search_call',
        id: nextId('tsc'),
        call_id: b.id || nextId('call'),
        status: 'completed',
        execution: 'client',
        arguments: { query: b.toolSearch },
      }
    }
    const callId = b.id || nextId('call')
    if (custom.has(b.tool)) {
      const input = typeof b.input === 'string' ? b.input : (b.input?.input ?? JSON.stringify(b.input))
      return { type: 'custom_tool_call', id: nextId('ctc'), status: 'completed', call_id: callId, name: b.tool, input }
    }
    const args = typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {})
    const fc = { type: 'function_call', id: nextId('fc'), status: 'completed', call_id: callId, name: b.tool, arguments: args }
    return b.namespace ? { ...fc, namespace: b.namespace } : fc
  })
}

// Split text into word-ish pieces that keep their whitespace, for delta streaming.
const pieces = (s, chunked) => (chunked ? s.match(/\S+\s*|\s+/g) || [''] : [s])

async function sse(res, req, items, def, model) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  let seq = 0
  const ev = (type, data) => {
    if (res.destroyed) return
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`)
  }
  const gone = () => res.destroyed || res.socket?.destroyed
  const respId = nextId('resp')
  const created = Math.floor(Date.now() / 1000)
  const base = { id: respId, object: 'response', created_at: created, model, status: 'in_progress', output: [] }
  ev('response.created', { response: base })
  ev('response.in_progress', { response: base })
  if (def.delayMs) await sleep(def.delayMs)
  const chunked = Boolean(def.chunkMs)
  const done = []
  for (let i = 0; i < items.length; i++) {
    if (def.pauseAfter !== undefined && i === def.pauseAfter) {
      await sleep(def.pauseMs || 30000)
    }
    if (gone()) return log('  (client went away mid-stream)')
    const item = items[i]
    const output_index = i
    if (item.type === 'message') {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } })
      ev('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } })
      for (const p of pieces(item.content[0].text, chunked)) {
        ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: p })
        if (chunked) {
          await sleep(def.chunkMs)
          if (gone()) return log('  (client went away mid-stream)')
        }
      }
      ev('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text: item.content[0].text })
      ev('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: item.content[0] })
    } else if (item.type === 'reasoning') {
      ev('response.output_item.added', { output_index, item: { ...item, summary: [], content: undefined } })
      if (item.content) {
        for (const p of pieces(item.content[0].text, chunked)) {
          ev('response.reasoning_text.delta', { item_id: item.id, output_index, content_index: 0, delta: p })
          if (chunked) {
            await sleep(def.chunkMs)
            if (gone()) return log('  (client went away mid-stream)')
          }
        }
        ev('response.reasoning_text.done', { item_id: item.id, output_index, content_index: 0, text: item.content[0].text })
      } else {
        const text = item.summary[0].text
        ev('response.reasoning_summary_part.added', { item_id: item.id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } })
        for (const p of pieces(text, chunked)) {
          ev('response.reasoning_summary_text.delta', { item_id: item.id, output_index, summary_index: 0, delta: p })
          if (chunked) {
            await sleep(def.chunkMs)
            if (gone()) return log('  (client went away mid-stream)')
          }
        }
        ev('response.reasoning_summary_text.done', { item_id: item.id, output_index, summary_index: 0, text })
        ev('response.reasoning_summary_part.done', { item_id: item.id, output_index, summary_index: 0, part: { type: 'summary_text', text } })
      }
    } else if (item.type === 'function_call') {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } })
      ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments })
      ev('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments })
    } else if (item.type === 'custom_tool_call') {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', input: '' } })
      ev('response.custom_tool_call_input.delta', { item_id: item.id, output_index, delta: item.input })
      ev('response.custom_tool_call_input.done', { item_id: item.id, output_index, input: item.input })
    }
    ev('response.output_item.done', { output_index, item })
    done.push(item)
  }
  if (gone()) return log('  (client went away before completion)')
  if (def.failed) {
    ev('response.failed', {
      response: { ...base, status: 'failed', error: { code: def.failed.code || 'server_error', message: def.failed.message || 'mock failure' } },
    })
    return res.end()
  }
  const inTok = 1200 + Math.floor((req.bodyLength || 0) / 40)
  ev('response.completed', {
    response: {
      ...base,
      status: 'completed',
      output: done,
      usage: {
        input_tokens: inTok,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 42,
        output_tokens_details: { reasoning_tokens: 8 },
        total_tokens: inTok + 42,
      },
    },
  })
  res.end()
}

function decodeBody(buf, enc) {
  try {
    if (enc === 'gzip') return zlib.gunzipSync(buf).toString('utf8')
    if (enc === 'deflate') return zlib.inflateSync(buf).toString('utf8')
    if (enc === 'br') return zlib.brotliDecompressSync(buf).toString('utf8')
    if (enc === 'zstd' && zlib.zstdDecompressSync) return zlib.zstdDecompressSync(buf).toString('utf8')
  } catch (e) {
    log(`  (could not decode ${enc} body: ${e.message})`)
  }
  return buf.toString('utf8')
}

// One-line summary of the newest input items (what codex sent back after the last step).
function tailSummary(input) {
  if (!Array.isArray(input)) return ''
  const out = []
  for (let i = input.length - 1; i >= 0 && out.length < 3; i--) {
    const it = input[i]
    if (it.type === 'function_call_output' || it.type === 'custom_tool_call_output') {
      const o = typeof it.output === 'string' ? it.output : JSON.stringify(it.output)
      out.unshift(`${it.type}(${it.call_id}): ${o.replace(/\s+/g, ' ').slice(0, 160)}`)
    } else if (it.type === 'message') {
      const t = (it.content || []).map((c) => c.text || '').join(' ')
      out.unshift(`${it.role}: ${t.replace(/\s+/g, ' ').slice(0, 120)}`)
      if (it.role === 'user') break
    } else out.unshift(it.type)
  }
  return out.join(' | ')
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', async () => {
    const raw = Buffer.concat(chunks)
    const body = decodeBody(raw, req.headers['content-encoding'])
    let meta = {}
    try {
      meta = JSON.parse(req.headers['x-codex-turn-metadata'] || '{}')
    } catch {}
    log(
      `${req.method} ${req.url} ${raw.length}${req.headers['content-encoding'] ? ' ' + req.headers['content-encoding'] : ''}${meta.request_kind ? ' kind=' + meta.request_kind : ''}${meta.thread_source ? ' thread=' + meta.thread_source : ''}`,
    )
    if (process.env.MOCK_DUMP_DIR)
      fs.writeFileSync(
        `${process.env.MOCK_DUMP_DIR}/req-${Date.now()}-${++idn}.json`,
        JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }, null, 1),
      )
    const path = req.url.split('?')[0]
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ object: 'list', data: [] }))
    }
    if (req.method !== 'POST' || !path.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ error: { message: `mock: no route ${req.method} ${path}`, type: 'invalid_request_error' } }))
    }
    let j = {}
    try {
      j = JSON.parse(body)
    } catch {
      log('  (body is not JSON)')
    }
    const model = j.model || 'gpt-mock'
    // Side requests: codex names the session title in a separate "thread_title" thread that asks
    // for JSON (text.format json_schema {title}); anything not from the user's thread is side.
    const schema = j.text?.format?.type === 'json_schema' ? j.text.format.schema : null
    const isMain = Array.isArray(j.tools) && j.tools.length > 0 && !schema && (!meta.thread_source || meta.thread_source === 'user')
    if (isMain && process.env.MOCK_LOG_TOOLS) log(`  tools: ${toolNames(j.tools)}`)
    const tail = tailSummary(j.input)
    if (tail) log(`  input: ${tail}`)
    let def
    if (isMain) {
      def = scenario.steps[step] || [{ text: scenario.idleText || 'Nothing more to do.' }]
      step++
    } else {
      // sideTexts (an array) is used one per side request, then sideText.
      const side = (scenario.sideTexts || [])[sideN++] ?? scenario.sideText ?? 'Mock session'
      if (schema) {
        // Fill every string property of the requested JSON object (the title request's {title}).
        const obj = {}
        for (const [k, v] of Object.entries(schema.properties || {})) obj[k] = v.type === 'string' ? side : null
        def = [{ text: JSON.stringify(obj), phase: null }]
      } else def = [{ text: side, phase: null }]
    }
    let blocks = Array.isArray(def) ? def : def.blocks || []
    // {{SESSION_ID}} in a tool input: the newest "session ID N" codex reported (a command still
    // running), so a step can write_stdin into the command an earlier step started.
    if (JSON.stringify(blocks).includes('{{SESSION_ID}}')) {
      const ids = [...body.matchAll(/session ID (\d+)/g)]
      const sid = ids.length ? ids[ids.length - 1][1] : '0'
      blocks = JSON.parse(JSON.stringify(blocks).replaceAll('"{{SESSION_ID}}"', sid).replaceAll('{{SESSION_ID}}', sid))
    }
    const opts = Array.isArray(def) ? {} : def
    const items = itemsFor(blocks, customToolNames(j.tools))
    log(
      `  -> ${isMain ? `main step ${step}` : 'side'} ${JSON.stringify(items.map((it) => (it.type === 'message' ? { text: it.content[0].text } : it.type === 'reasoning' ? { reasoning: (it.summary[0] || it.content[0]).text } : { [it.type]: it.name, call_id: it.call_id, input: it.arguments ?? it.input }))).slice(0, 300)}`,
    )
    if (res.destroyed || res.socket?.destroyed) return log('  (client went away; not answering)')
    if (j.stream === false) {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(
        JSON.stringify({
          id: nextId('resp'),
          object: 'response',
          created_at: Math.floor(Date.now() / 1000),
          model,
          status: 'completed',
          output: items,
          usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120 },
        }),
      )
    }
    req.bodyLength = raw.length
    return sse(res, req, items, opts, model)
  })
})
server.listen(port, '127.0.0.1', () => log(`listening ${port}`))
