// A search index reader thread that dies without an error when first asked a
// query (as a thread that stops mid-query would): the real one until then.
import '../../src/search/read-worker'

declare const self: Worker
const real = self.onmessage!
self.onmessage = (ev: MessageEvent<{ t: string }>) => {
  if (ev.data?.t === 'search') process.exit(1)
  real.call(self, ev)
}
