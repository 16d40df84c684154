// A search index writer thread that dies without an error when first asked to
// sync (as a thread that stops would): the real one until then, its writes not
// committed.
import '../../src/search/write-worker'

declare const self: Worker
const real = self.onmessage!
self.onmessage = (ev: MessageEvent<{ t: string }>) => {
  if (ev.data?.t === 'sync') process.exit(1)
  real.call(self, ev)
}
