// The floor every transcript benchmark is measured against, taken in the same
// run: a plain streaming read of the file with JSON.parse of every line.
import { open } from 'node:fs/promises'

/**
 * The floor: stream the file in 2 MiB chunks, split lines, JSON.parse every line.
 * With `normalize`, the same pass calls the normalizer instead: the least any
 * index build that normalizes every line can cost.
 */
export async function floor(path: string, normalize?: (line: string, offset: number) => unknown): Promise<number> {
  const t0 = performance.now()
  const fh = await open(path, 'r')
  const buf = Buffer.allocUnsafe(2 * 1024 * 1024)
  let pos = 0
  let carry = Buffer.alloc(0)
  let parsed = 0
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos)
    if (bytesRead === 0) break
    pos += bytesRead
    const chunk = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead)
    let at = 0
    for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
      if (nl > at) {
        const text = chunk.toString('utf8', at, nl)
        if (normalize) normalize(text, pos - chunk.length + at)
        else JSON.parse(text)
        parsed++
      }
      at = nl + 1
    }
    carry = Buffer.from(chunk.subarray(at))
  }
  await fh.close()
  if (parsed === 0) throw new Error('floor parsed nothing')
  return performance.now() - t0
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** The floor as the session benches report it: one run to warm the page cache for everyone alike, then the median of 3. */
export async function settledFloor(path: string): Promise<number> {
  await floor(path)
  return median([await floor(path), await floor(path), await floor(path)])
}

/** The floor in a fresh process (spawned now): what a cold first connect is up against, JIT and all. */
export async function freshFloor(path: string): Promise<number> {
  const child = Bun.spawn([process.execPath, import.meta.path, path], { stdout: 'pipe', stderr: 'inherit' })
  const text = await new Response(child.stdout).text()
  if ((await child.exited) !== 0) throw new Error('fresh floor process failed')
  return Number(text.trim())
}

if (import.meta.main) console.log(await floor(process.argv[2]!))
