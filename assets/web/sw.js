// gothalo's service worker: the app shell works offline (the API never is
// cached), and pushes become notifications that act (docs/bridge.md
// "Notifications that act"):
// - a pane's notification is tagged with its pane id, so a newer one replaces it;
//   a blocked one shows the question and, where the platform has actions, up to
//   two buttons for the first options; a button posts POST /answer with the
//   dialog's fingerprint and seq, using the device token the app keeps for the
//   worker in IndexedDB, and the notification then says "Sent" or why not;
// - `resolved` closes that pane's notification and shows nothing;
// - a group ("3 agents need you") replaces the notifications of its panes and
//   opens the list;
// - nothing is shown while a window of the app has focus: it shows the same.
const SHELL = 'gothalo-shell-v1'
const ASSETS = ['/', '/app.js', '/app.css', '/manifest.webmanifest', '/icon.svg', '/icon-192.png']
const GROUP_TAG = 'gothalo:blocked'
/** At most this many buttons, whatever the platform allows (the spec's two). */
const MAX_BUTTONS = 2

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
  // "Share → gothalo" (the manifest's share_target): keep what was shared for the app, which asks which agent gets it
  if (e.request.method === 'POST' && url.origin === location.origin && url.pathname === '/share-target') {
    e.respondWith(
      (async () => {
        try {
          const form = await e.request.formData()
          const files = form.getAll('files').filter((f) => typeof f !== 'string')
          const text = [form.get('title'), form.get('text')].filter((x) => typeof x === 'string' && x).join(' ')
          await kvPut('shared', { files, text, at: Date.now() })
        } catch {}
        return Response.redirect('/#/share', 303)
      })(),
    )
    return
  }
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

/** Keeps the worker alive for `p`. A script-made event (a test's click) has no lifetime to extend. */
function keep(e, p) {
  try {
    e.waitUntil(p)
  } catch {}
  return p
}

/** Writes one value in the app's IndexedDB store (the one the app and the worker share). */
function kvPut(key, value) {
  return new Promise((resolve) => {
    const open = indexedDB.open('gothalo', 1)
    open.onupgradeneeded = () => open.result.createObjectStore('kv')
    open.onerror = () => resolve()
    open.onsuccess = () => {
      const db = open.result
      try {
        const tx = db.transaction('kv', 'readwrite')
        tx.objectStore('kv').put(value, key)
        tx.oncomplete =
          tx.onerror =
          tx.onabort =
            () => {
              db.close()
              resolve()
            }
      } catch {
        db.close()
        resolve()
      }
    }
  })
}

/** The device token the app keeps for this worker (same origin only), or null. */
function deviceToken() {
  return new Promise((resolve) => {
    const open = indexedDB.open('gothalo', 1)
    open.onupgradeneeded = () => open.result.createObjectStore('kv')
    open.onerror = () => resolve(null)
    open.onsuccess = () => {
      const db = open.result
      try {
        const get = db.transaction('kv', 'readonly').objectStore('kv').get('token')
        get.onsuccess = () => resolve(typeof get.result === 'string' ? get.result : null)
        get.onerror = () => resolve(null)
      } catch {
        resolve(null)
      } finally {
        db.close()
      }
    }
  })
}

const kindOf = (p) => p.agent_kind || 'agent'
const nameOf = (p) => p.name || kindOf(p)

/** The buttons a blocked payload offers: its first options that a tap can answer (no typed text, no multi-select). */
function buttonsFor(p) {
  if (p.agent_status !== 'blocked' || !p.fingerprint || p.multi_select || !Array.isArray(p.options)) return []
  const max = Math.min(MAX_BUTTONS, typeof Notification !== 'undefined' && Notification.maxActions !== undefined ? Notification.maxActions : MAX_BUTTONS)
  return p.options
    .filter((o) => !o.free_text)
    .slice(0, max)
    .map((o) => ({ action: `choose:${o.position}`, title: o.label }))
}

/** A pane's notification for a status payload. */
function showPane(p, over = {}) {
  const blocked = p.agent_status === 'blocked'
  const title = blocked ? `${nameOf(p)} needs you` : p.agent_status === 'done' ? `${nameOf(p)} is done` : `${nameOf(p)}: ${p.agent_status || 'update'}`
  return self.registration.showNotification(over.title || title, {
    body: over.body ?? (p.question || p.headline || ''),
    tag: p.pane_id,
    renotify: over.renotify ?? blocked,
    silent: over.silent ?? false,
    icon: '/icon-192.png',
    actions: over.actions ?? buttonsFor(p),
    data: {
      pane_id: p.pane_id,
      agent_kind: kindOf(p),
      agent_status: p.agent_status,
      name: nameOf(p),
      seq: p.seq,
      fingerprint: p.fingerprint,
      options: p.options,
    },
  })
}

function groupBody(panes) {
  return panes.map((m) => (m.question ? `${m.name}: ${m.question}` : m.name)).join('\n')
}

function showGroup(panes, renotify) {
  return self.registration.showNotification(panes.length === 1 ? `${panes[0].name} needs you` : `${panes.length} agents need you`, {
    body: groupBody(panes),
    tag: GROUP_TAG,
    renotify,
    silent: !renotify,
    icon: '/icon-192.png',
    data: { group: true, panes },
  })
}

/** A pane moved on: its notification goes, and so does its line in the group. */
async function resolve(pane) {
  for (const n of await self.registration.getNotifications()) {
    if (n.tag === pane) n.close()
    else if (n.tag === GROUP_TAG && Array.isArray(n.data?.panes)) {
      const rest = n.data.panes.filter((m) => m.pane_id !== pane)
      if (rest.length === n.data.panes.length) continue
      n.close()
      if (rest.length) await showGroup(rest, false)
    }
  }
}

async function appHasFocus() {
  const list = await self.clients.matchAll({ type: 'window', includeUncontrolled: true })
  return list.some((c) => c.focused && c.visibilityState === 'visible')
}

async function onPush(p) {
  if (p.resolved) return resolve(p.pane_id)
  // a window of the app has focus: it shows the same, live
  if (await appHasFocus()) return
  if (p.group) {
    const panes = Array.isArray(p.panes) ? p.panes : []
    for (const n of await self.registration.getNotifications()) if (panes.some((m) => m.pane_id === n.tag)) n.close()
    return showGroup(panes, true)
  }
  return showPane(p)
}

/**
 * The worker's own work on notifications, one piece at a time in arrival order: a
 * retraction never overtakes the notification it closes, and no two pieces read
 * and write the shown notifications at once (Chromium can lose a notification
 * shown while another read of them is under way). `handled` counts what was done,
 * for DevTools and the tests.
 */
let queue = Promise.resolve()
const handled = { pushes: 0, clicks: 0 }
self.handled = handled
function inTurn(work, counter) {
  const run = queue.then(work).catch(() => {})
  queue = run.then(() => {
    handled[counter]++
  })
  return queue
}

self.addEventListener('push', (e) => {
  let p = {}
  try {
    p = e.data ? e.data.json() : {}
  } catch {}
  keep(
    e,
    inTurn(() => onPush(p), 'pushes'),
  )
})

/** Where the app shows the agent a notification is about (or the list). */
function targetOf(data) {
  if (!data?.pane_id || data.group) return '/#/'
  // a finished agent: what it changed
  if (data.agent_status === 'done') return `/#/p/${encodeURIComponent(data.pane_id)}/changes`
  return `/#/p/${encodeURIComponent(data.pane_id)}`
}

async function openApp(target) {
  const list = await self.clients.matchAll({ type: 'window', includeUncontrolled: true })
  for (const c of list) {
    if ('focus' in c) {
      await c.navigate(target).catch(() => {})
      return c.focus()
    }
  }
  return self.clients.openWindow(target)
}

async function api(method, path, token, body) {
  const headers = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, text, json: () => JSON.parse(text) }
}

/** After a 409: what the pane shows now, as a notification (the new question with its buttons, or why nothing was sent). */
async function showWhatChanged(data, token, why) {
  try {
    const snap = await api('GET', '/snapshot', token)
    const row = snap.status === 200 ? snap.json().panes.find((r) => r.pane_id === data.pane_id) : undefined
    if (row && row.agent_status === 'blocked') {
      const card = await api('GET', `/agent-state?pane=${encodeURIComponent(data.pane_id)}`, token)
      const b = card.status === 200 ? card.json().blocked : undefined
      if (b) {
        const p = {
          pane_id: data.pane_id,
          agent_kind: data.agent_kind,
          name: data.name,
          agent_status: 'blocked',
          question: b.question,
          fingerprint: b.fingerprint,
          multi_select: b.multi_select || undefined,
          options: b.options.slice(0, 4).map((o, i) => ({ position: i + 1, label: o.label, free_text: o.free_text })),
          seq: row.state_change_seq,
        }
        return showPane(p, { title: `Not sent: the dialog changed — ${data.name} asks`, renotify: true })
      }
    }
  } catch {}
  return showPane(
    { pane_id: data.pane_id, agent_kind: data.agent_kind, name: data.name },
    { title: `${data.name}: not sent`, body: `${why} (answered elsewhere?)`, actions: [], renotify: false, silent: true },
  )
}

/** A button: POST /answer for that option, then say how it went in the same notification. */
async function answer(data, position) {
  const label = (data.options || []).find((o) => o.position === position)?.label || `option ${position}`
  const say = (title, body) => showPane(data, { title, body, actions: [], renotify: false, silent: true })
  const token = await deviceToken()
  if (!token) return say(`${data.name}: not sent`, 'Open gothalo to pair this device again.')
  let r
  try {
    r = await api('POST', '/answer', token, { pane: data.pane_id, seq: data.seq, fingerprint: data.fingerprint, choose: [position] })
  } catch (err) {
    return say(`${data.name}: not sent`, `The bridge did not answer (${err?.message || err}).`)
  }
  if (r.status === 200) {
    const dup = (() => {
      try {
        return r.json().duplicate === true
      } catch {
        return false
      }
    })()
    return say(`${data.name}: sent`, dup ? `“${label}” was already sent.` : `Sent “${label}”.`)
  }
  if (r.status === 409) return showWhatChanged(data, token, r.text || 'the dialog changed')
  if (r.status === 401) return say(`${data.name}: not sent`, 'This device is no longer paired: open gothalo to pair it again.')
  return say(`${data.name}: not sent`, r.text || `status ${r.status}`)
}

self.addEventListener('notificationclick', (e) => {
  const data = e.notification.data || {}
  const m = /^choose:(\d+)$/.exec(e.action || '')
  if (m && data.pane_id && data.fingerprint) {
    keep(
      e,
      inTurn(() => answer(data, Number(m[1])), 'clicks'),
    )
    return
  }
  e.notification.close()
  keep(
    e,
    inTurn(() => openApp(targetOf(data)), 'clicks'),
  )
})
