// gothalo's service worker: the app shell works offline (the API never is
// cached), and pushes become notifications tagged by pane, so a newer one
// replaces an older one for the same agent.
const SHELL = 'gothalo-shell-v1'
const ASSETS = ['/', '/app.js', '/app.css', '/manifest.webmanifest', '/icon.svg', '/icon-192.png']

self.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(SHELL)
      .then((c) => c.addAll(ASSETS))
      .then(() => self.skipWaiting()),
  )
})
self.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== SHELL).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  )
})
self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url)
  if (e.request.method !== 'GET' || url.origin !== location.origin || !ASSETS.includes(url.pathname)) return
  // Network first, so a new bridge version's app is used at once; the cache is for offline starts.
  e.respondWith(
    fetch(e.request)
      .then((res) => {
        const copy = res.clone()
        caches.open(SHELL).then((c) => c.put(e.request, copy))
        return res
      })
      .catch(() => caches.match(e.request)),
  )
})

self.addEventListener('push', (e) => {
  let p = {}
  try {
    p = e.data ? e.data.json() : {}
  } catch {}
  const kind = p.agent_kind || 'agent'
  const title = p.agent_status === 'blocked' ? `${kind} needs you` : p.agent_status === 'done' ? `${kind} is done` : `${kind}: ${p.agent_status || 'update'}`
  const body = p.question || p.headline || ''
  e.waitUntil(
    self.registration.showNotification(title, {
      body,
      tag: p.pane_id || 'gothalo',
      renotify: p.agent_status === 'blocked',
      icon: '/icon-192.png',
      data: { pane_id: p.pane_id },
    }),
  )
})

self.addEventListener('notificationclick', (e) => {
  e.notification.close()
  const pane = e.notification.data?.pane_id
  const target = pane ? `/#/p/${encodeURIComponent(pane)}` : '/#/'
  e.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      for (const c of list) {
        if ('focus' in c) {
          c.navigate(target)
          return c.focus()
        }
      }
      return self.clients.openWindow(target)
    }),
  )
})
