// A body read up to a limit: the upload a phone sends, the answer another bridge
// gives. Past the limit the rest is never read (the stream is cancelled), so a
// sender that does not stop costs at most the limit.

/** The first bytes of `body`, `max` at most; `more` when it held more (the rest is not read). */
export async function readUpTo(body: ReadableStream<Uint8Array> | null, max: number): Promise<{ bytes: Uint8Array; more: boolean }> {
  if (!body) return { bytes: new Uint8Array(), more: false }
  const chunks: Uint8Array[] = []
  let size = 0
  let more = false
  const reader = body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size))
      size = max
      more = true
      await reader.cancel().catch(() => {})
      break
    }
    size += value.byteLength
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.byteLength
  }
  return { bytes, more }
}

/** The bytes of `body`, or undefined once they pass `max` (or `declared`, its content-length, does). */
export async function readCapped(body: ReadableStream<Uint8Array> | null, declared: string | null, max: number): Promise<Uint8Array | undefined> {
  const length = Number(declared ?? Number.NaN)
  if (Number.isFinite(length) && length > max) {
    await body?.cancel().catch(() => {})
    return undefined
  }
  const { bytes, more } = await readUpTo(body, max)
  return more ? undefined : bytes
}

/** The text of an answer's first `max` bytes (a line that says why); the rest is not read. */
export async function textUpTo(res: Response, max: number): Promise<string> {
  return new TextDecoder().decode((await readUpTo(res.body, max)).bytes)
}
