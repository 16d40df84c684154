// Measures the shared JSONL engine on generated Claude Code transcripts.
//   bun bench/transcript-engine.ts [MB ...]      (default: 10 100)
// Files go to /tmp (generated once, reused). Prints one JSON line of figures,
// then a readable summary with ratios against the floor. Targets (issue 4):
// cold ≤ 1.5× floor; warm < 50 ms, flat in size; deep older page < 20 ms;
// append→onGrow p50 < 50 ms; RSS growth < 64 MB; per-timeline cost small.
import { appendFileSync, existsSync, statSync } from 'node:fs'
import type { Draft } from '../src/transcript/entry'
import type { LineCounter, LineNormalizer } from '../src/transcript/jsonl/normalizer'
import {
  acquireJsonlTimeline,
  dropJsonlCache,
  jsonlDebug,
  type JsonlTimeline,
} from '../src/transcript/jsonl/timeline'
import { corpusRecords, generateTranscript } from './gen-transcript'
import { floor, median } from './floor'

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
if (sizes.length === 0) sizes.push(10, 100)

/** A stand-in with a realistic amount of work: parse, walk content blocks, build drafts. */
const standIn: LineNormalizer = (line, offset) => {
  let rec: any
  try {
    rec = JSON.parse(line)
  } catch {
    return [{ id: `line@${offset}#0`, role: 'system', kind: 'message', text: line.slice(0, 2000), parsed: false }]
  }
  const msg = rec?.message
  if (!msg || (rec.type !== 'user' && rec.type !== 'assistant')) return []
  const blocks = typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : (msg.content ?? [])
  const out: Draft[] = []
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]
    const base = { id: `${rec.uuid}#${i}`, parent_id: rec.parentUuid ?? undefined, ts: rec.timestamp, parsed: true }
    if (b.type === 'text') out.push({ ...base, role: msg.role, kind: 'message', text: String(b.text).slice(0, 20000) })
    else if (b.type === 'tool_use')
      out.push({ ...base, role: 'assistant', kind: 'tool_call', tool: { id: b.id, name: b.name, input_summary: JSON.stringify(b.input).slice(0, 200) } })
    else if (b.type === 'tool_result')
      out.push({ ...base, role: 'user', kind: 'tool_result', result: { for_id: b.tool_use_id, ok: !b.is_error, output_summary: JSON.stringify(b.content).slice(0, 4000) } })
  }
  return out
}

async function pickNormalizer(): Promise<{ name: string; normalize: LineNormalizer; count?: LineCounter }> {
  try {
    const mod = await import('../src/transcript/kinds/claude/normalize')
    if (typeof mod.normalizeClaudeLine === 'function')
      return { name: 'normalizeClaudeLine', normalize: mod.normalizeClaudeLine, count: (mod as { countClaudeLine?: LineCounter }).countClaudeLine }
  } catch {
    // not there yet: the stand-in does comparable work
  }
  return { name: 'stand-in', normalize: standIn }
}

const ms = (t0: number) => performance.now() - t0
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]
const rssMB = () => process.memoryUsage().rss / 1048576
const settle = () => {
  Bun.gc(true)
  return rssMB()
}


async function newestPage(tl: JsonlTimeline) {
  const total = tl.total()
  return tl.read(Math.max(1, total - 149), total)
}

/** A real assistant line from the corpus with a fresh uuid, to append. */
function appendLine(recs: Record<string, unknown>[], k: number): string {
  const rec = recs.find((r) => r.type === 'assistant') ?? recs[0]
  return JSON.stringify({ ...rec, uuid: crypto.randomUUID(), timestamp: new Date().toISOString(), bench: k }) + '\n'
}

/** Appends `n` lines with gaps spread over `spreadMs` (so they land at every phase of the poll). */
async function tailLatency(tl: JsonlTimeline, path: string, recs: Record<string, unknown>[], n: number, spreadMs = 40) {
  const lat: number[] = []
  for (let k = 0; k < n; k++) {
    const got = new Promise<number>((res) => {
      const off = tl.onGrow(() => {
        off()
        res(performance.now())
      })
    })
    const t0 = performance.now()
    appendFileSync(path, appendLine(recs, k))
    lat.push((await got) - t0)
    await Bun.sleep(5 + ((k * 37) % spreadMs)) // appends arrive spread out, not in lockstep with the poll
  }
  return lat
}

async function main() {
  const { name, normalize, count } = await pickNormalizer()
  const recs = corpusRecords()
  const results: Record<string, unknown>[] = []
  const rssStart = settle()
  for (const mb of sizes) {
    const path = `/tmp/gothalo-bench-${mb}.jsonl`
    if (!existsSync(path) || statSync(path).size < mb * 1048576) generateTranscript(mb, path)
    // (earlier runs appended ~50 lines to the file they measured: harmless)
    const bytes = statSync(path).size
    await floor(path) // warm the page cache for everyone alike
    const floorMs = median([await floor(path), await floor(path), await floor(path)])
    const floorNormMs = median([await floor(path, normalize), await floor(path, normalize), await floor(path, normalize)])
    const floorCountMs = count ? median([await floor(path, count), await floor(path, count), await floor(path, count)]) : undefined

    dropJsonlCache()
    const rssBefore = settle()
    let peak = rssBefore
    const sampler = setInterval(() => (peak = Math.max(peak, rssMB())), 5)
    const t0 = performance.now()
    let tl = await acquireJsonlTimeline(path, normalize, { normalizerId: name, count })
    const page = await newestPage(tl)
    const colds = [ms(t0)]
    clearInterval(sampler)
    for (let i = 0; i < 2; i++) {
      tl.release()
      dropJsonlCache()
      const tc = performance.now()
      tl = await acquireJsonlTimeline(path, normalize, { normalizerId: name, count })
      await newestPage(tl)
      colds.push(ms(tc))
    }
    const coldMs = median(colds)
    if (page.length !== Math.min(150, tl.total())) throw new Error('newest page has the wrong size')
    const total = tl.total()

    tl.release()
    const warm: number[] = []
    for (let i = 0; i < 5; i++) {
      const t1 = performance.now()
      const again = await acquireJsonlTimeline(path, normalize, { normalizerId: name, count })
      await newestPage(again)
      warm.push(ms(t1))
      again.release()
    }
    const buildsBefore = jsonlDebug().indexBuilds
    tl = await acquireJsonlTimeline(path, normalize, { normalizerId: name, count })
    if (jsonlDebug().indexBuilds !== buildsBefore) throw new Error('warm acquire rebuilt the index')

    const deep: number[] = []
    for (let i = 0; i < 9; i++) {
      const from = Math.max(1, Math.floor(total * (0.05 + i * 0.05)))
      const t2 = performance.now()
      const older = await tl.read(from, from + 149)
      deep.push(ms(t2))
      if (older.length !== 150 || older[0].seq !== from) throw new Error('deep page is wrong')
    }

    const lat = await tailLatency(tl, path, recs, 50)
    // The poll alone (no directory watch): a second registry entry on the same
    // file, with its own tailer, stands in for a platform where watching fails.
    const pollOnly = await acquireJsonlTimeline(path, normalize, { normalizerId: `${name}/poll-only`, watch: false, count })
    const latPoll = mb === sizes[0] ? await tailLatency(pollOnly, path, recs, 20, 250) : []
    pollOnly.release()
    const rssServing = settle()

    // 200 timelines on the one file: acquire each, read its newest page, subscribe.
    const before200 = settle()
    const heap200 = process.memoryUsage().heapUsed
    const t3 = performance.now()
    const many: JsonlTimeline[] = []
    let acquireOnly = 0
    for (let i = 0; i < 200; i++) {
      const ta = performance.now()
      const h = await acquireJsonlTimeline(path, normalize, { normalizerId: name, count })
      acquireOnly += ms(ta)
      await newestPage(h)
      h.onGrow(() => {})
      many.push(h)
    }
    const manyMs = ms(t3)
    const after200 = settle()
    const heapAfter200 = process.memoryUsage().heapUsed
    const fan0 = performance.now()
    const fanned = new Promise<number>((res) => {
      const off = many[199].onGrow(() => {
        off()
        res(performance.now())
      })
    })
    appendFileSync(path, appendLine(recs, -1))
    const fanMs = (await fanned) - fan0
    const debug = jsonlDebug()
    for (const h of many) h.release()
    tl.release()

    results.push({
      mb,
      bytes,
      lines_entries_total: total,
      normalizer: name,
      floor_ms: +floorMs.toFixed(1),
      cold_ms: +coldMs.toFixed(1),
      cold_first_ms: +colds[0].toFixed(1),
      cold_over_floor: +(coldMs / floorMs).toFixed(2),
      floor_normalize_ms: +floorNormMs.toFixed(1),
      cold_over_floor_normalize: +(coldMs / floorNormMs).toFixed(2),
      counter: count ? 'countClaudeLine' : undefined,
      floor_count_ms: floorCountMs === undefined ? undefined : +floorCountMs.toFixed(1),
      warm_ms: +median(warm).toFixed(2),
      deep_page_ms: +median(deep).toFixed(2),
      deep_page_max_ms: +Math.max(...deep).toFixed(2),
      tail_p50_ms: +pct(lat, 0.5).toFixed(1),
      tail_p95_ms: +pct(lat, 0.95).toFixed(1),
      tail_poll_only_p50_ms: latPoll.length ? +pct(latPoll, 0.5).toFixed(1) : undefined,
      rss_growth_build_peak_mb: +(peak - rssBefore).toFixed(1),
      rss_growth_serving_mb: +(rssServing - rssBefore).toFixed(1),
      rss_serving_over_process_start_mb: +(rssServing - rssStart).toFixed(1),
      timelines_200_ms: +manyMs.toFixed(1),
      per_timeline_ms: +(manyMs / 200).toFixed(3),
      per_timeline_acquire_only_ms: +(acquireOnly / 200).toFixed(3),
      per_timeline_rss_kb: +(((after200 - before200) * 1024) / 200).toFixed(1),
      per_timeline_heap_kb: +((heapAfter200 - heap200) / 1024 / 200).toFixed(2),
      fanout_200_append_ms: +fanMs.toFixed(1),
      index_kb: +(debug.indexBytes / 1024).toFixed(1),
      index_builds_total: debug.indexBuilds,
    })
  }
  const out = { bench: 'transcript-engine', rss_start_mb: +rssStart.toFixed(1), rss_end_mb: +settle().toFixed(1), results }
  console.log(JSON.stringify(out))
  console.log('')
  for (const r of results as any[]) {
    console.log(`${r.mb} MB (${r.lines_entries_total} entries, normalizer ${r.normalizer})`)
    console.log(`  floor (stream + JSON.parse every line)  ${r.floor_ms} ms`)
    console.log(`  floor with the normalizer instead        ${r.floor_normalize_ms} ms  (the normalizer's own cost)`)
    if (r.floor_count_ms !== undefined)
      console.log(`  floor with the line counter instead     ${r.floor_count_ms} ms  (what the index build runs per line)`)
    console.log(`  cold index + newest 150                 ${r.cold_ms} ms (median of 3; first ${r.cold_first_ms})  = ${r.cold_over_floor}× floor   (target ≤ 1.5×)`)
    console.log(`  warm re-acquire + newest 150            ${r.warm_ms} ms   (target < 50 ms, flat)`)
    console.log(`  150 entries deep (warm), median / max   ${r.deep_page_ms} / ${r.deep_page_max_ms} ms   (target < 20 ms)`)
    console.log(`  append → onGrow p50 / p95               ${r.tail_p50_ms} / ${r.tail_p95_ms} ms   (target p50 < 50 ms)`)
    if (r.tail_poll_only_p50_ms !== undefined)
      console.log(`  append → onGrow p50, 250 ms poll only   ${r.tail_poll_only_p50_ms} ms   (no directory watch)`)
    console.log(`  RSS growth: build peak / serving        ${r.rss_growth_build_peak_mb} / ${r.rss_growth_serving_mb} MB (serving vs process start ${r.rss_serving_over_process_start_mb} MB)   (target < 64 MB)`)
    console.log(`  200 timelines on one file               ${r.timelines_200_ms} ms total, ${r.per_timeline_ms} ms (acquire alone ${r.per_timeline_acquire_only_ms} ms, the rest is its newest page), ${r.per_timeline_heap_kb} KB heap (${r.per_timeline_rss_kb} KB RSS) each; one append reaches all 200 in ${r.fanout_200_append_ms} ms`)
    console.log(`  index size                              ${r.index_kb} KB`)
  }
}

await main()
