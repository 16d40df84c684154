import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { normalizeOpencodeMessages } from '../../../../src/transcript/kinds/opencode/normalize'
import { emptyTailState, tailStep, type OpencodeTailState } from '../../../../src/transcript/kinds/opencode/tail'

const FIX = join(import.meta.dir, '../../../../fixtures/opencode')
const DEMO = 'ses_dc9c81e7effeFPj4Gy4Pf06H0I'
const legacyAsc = JSON.parse(readFileSync(join(FIX, `api/session-${DEMO}-message.json`), 'utf8')) as any[]
const v2Asc = JSON.parse(readFileSync(join(FIX, `v2/api-session-${DEMO}-message.json`), 'utf8')).data as any[]
const desc = (a: unknown[]) => [...a].reverse()
const clone = <T>(x: T): T => structuredClone(x)

describe.each([
  ['1.x', legacyAsc],
  ['v2', v2Asc],
])('%s shape', (_name, asc) => {
  test('from the empty state a step is the whole backlog, and the watermark is the newest message', () => {
    const r = tailStep(emptyTailState, desc(asc))
    expect(r.reachedWatermark).toBe(true)
    expect(r.newDrafts).toEqual(normalizeOpencodeMessages(asc))
    expect(r.state.watermark).toBe(asc.at(-1).id ?? asc.at(-1).info.id)
    expect(r.state.seen.size).toBe(0)
  })

  test('a quiet poll emits nothing; only the messages above the watermark need reading', () => {
    const { state } = tailStep(emptyTailState, desc(asc))
    const r = tailStep(state, desc(asc).slice(0, 1)) // just the watermark message itself
    expect(r).toEqual({ state, newDrafts: [], reachedWatermark: true })
  })

  test('a page that does not reach the watermark changes nothing and says so', () => {
    const { state } = tailStep(emptyTailState, desc(asc.slice(0, 4)))
    const r = tailStep(state, desc(asc).slice(0, 2))
    expect(r.reachedWatermark).toBe(false)
    expect(r.newDrafts).toEqual([])
    expect(r.state).toBe(state)
  })

  test('growing history replayed one message at a time emits every entry exactly once, in order', () => {
    let state: OpencodeTailState = emptyTailState
    const emitted: string[] = []
    for (let n = 1; n <= asc.length; n++) {
      const r = tailStep(state, desc(asc.slice(0, n)))
      expect(r.reachedWatermark).toBe(true)
      emitted.push(...r.newDrafts.map((d) => d.id))
      state = r.state
    }
    expect(emitted).toEqual(normalizeOpencodeMessages(asc).map((d) => d.id))
  })
})

describe('a turn still being written', () => {
  // The last v2 assistant message of the first turn, replayed as it streams.
  const base = v2Asc.slice(0, 2) // user + first assistant (text, bash)
  const msg = clone(v2Asc[2]) // assistant: text, edit
  const stage = (content: unknown[], completed?: number) => ({ ...msg, time: { created: msg.time.created, ...(completed ? { completed } : {}) }, content })
  const [text, edit] = msg.content

  test('partial text waits; blocks stream once as they settle; the watermark holds until completion', () => {
    let { state } = tailStep(emptyTailState, desc(base))
    const wm0 = state.watermark
    expect(wm0).toBe(v2Asc[1].id)
    const steps = [
      stage([{ ...text, text: 'Now I' }]),
      stage([text]),
      stage([text, { ...edit, state: { status: 'pending', input: '{"filePa' } }]),
      stage([text, { ...edit, state: { status: 'running', input: edit.state.input, content: [], structured: {} } }]),
      stage([text, edit]),
      stage([text, edit], msg.time.completed),
    ]
    const got: string[][] = []
    for (const m of steps) {
      const r = tailStep(state, desc([...base, m]))
      expect(r.reachedWatermark).toBe(true)
      got.push(r.newDrafts.map((d) => `${d.kind}:${d.text ?? d.tool?.id ?? d.result?.for_id}`))
      state = r.state
      if (m !== steps.at(-1)) expect(state.watermark).toBe(wm0)
    }
    expect(got).toEqual([[], [], ["message:Now I'll edit the greeting."], ['tool_call:toolu_mock000007'], ['tool_result:toolu_mock000007'], []])
    expect(state.watermark).toBe(msg.id)
    expect(state.seen.size).toBe(0)
  })

  test('a prompt queued above a running turn does not move the watermark past that turn', () => {
    const { state } = tailStep(emptyTailState, desc(base))
    const running = stage([{ ...text, text: 'Now I' }])
    const queued = { id: 'msg_zzzz_queued', type: 'user', time: { created: msg.time.created + 5 }, text: 'also this' }
    const r1 = tailStep(state, desc([...base, running, queued]))
    expect(r1.newDrafts.map((d) => d.text)).toEqual(['also this'])
    expect(r1.state.watermark).toBe(state.watermark)
    const done = stage([text], msg.time.created + 9)
    const r2 = tailStep(r1.state, desc([...base, done, queued]))
    expect(r2.newDrafts.map((d) => d.text)).toEqual(["Now I'll edit the greeting."])
    expect(r2.state.watermark).toBe('msg_zzzz_queued')
    expect(r2.state.seen.size).toBe(0)
  })

  test('the step is pure: the input state is not mutated', () => {
    const s0 = tailStep(emptyTailState, desc(base)).state
    const running = stage([text, { ...edit, state: { status: 'running', input: edit.state.input, content: [], structured: {} } }])
    const r = tailStep(s0, desc([...base, running]))
    expect(s0.seen.size).toBe(0)
    expect(r.state.seen.size).toBe(2)
    expect(emptyTailState.seen.size).toBe(0)
  })
})
