// Web Push on/off. Browsers allow push only on HTTPS (or localhost) with a
// service worker; elsewhere the switch is not shown at all.
import { useEffect, useState } from 'preact/hooks'
import { api } from './api'
import type { ListState } from './pane-list'
import { staleNotifications } from './stale-notifications'

const SUB_KEY = 'gothalo.push'

export const pushSupported = (): boolean => window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window

function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const b64 = b64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64url.length % 4)) % 4)
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
}

export function NotificationSwitch() {
  const [on, setOn] = useState(() => !!localStorage.getItem(SUB_KEY))
  const [msg, setMsg] = useState<string | null>(null)
  const [available, setAvailable] = useState(false)
  useEffect(() => {
    if (!pushSupported()) return
    // Only offer it when this bridge sends pushes.
    api
      .get('/push/vapid-public-key')
      .then(() => setAvailable(true))
      .catch(() => setAvailable(false))
  }, [])
  if (!available) return null
  const toggle = async () => {
    setMsg(null)
    try {
      const reg = await navigator.serviceWorker.ready
      if (!on) {
        if ((await Notification.requestPermission()) !== 'granted') return setMsg('Notifications are blocked for this site.')
        const { key } = await api.get('/push/vapid-public-key')
        const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) })
        const r = await api.post('/push/subscriptions', { subscription: sub.toJSON(), events: ['blocked', 'done'] })
        localStorage.setItem(SUB_KEY, r.id)
        setOn(true)
      } else {
        const id = localStorage.getItem(SUB_KEY)
        await (await reg.pushManager.getSubscription())?.unsubscribe()
        if (id) await api.del(`/push/subscriptions/${encodeURIComponent(id)}`).catch(() => {})
        localStorage.removeItem(SUB_KEY)
        setOn(false)
      }
    } catch (e: any) {
      setMsg(e.message || String(e))
    }
  }
  return (
    <label class="notify">
      <input type="checkbox" checked={on} onChange={toggle} /> Notify me when an agent needs me
      {msg && <span class="msg error">{msg}</span>}
    </label>
  )
}

/**
 * While the app is on screen the bridge pushes nothing to this device, not even the
 * message that closes a notification whose pane moved on: close the ones the live
 * list shows are stale (only from a live /events list, never from an empty one).
 */
export function useNotificationTidy(list: ListState) {
  useEffect(() => {
    if (!list.epoch || !('serviceWorker' in navigator) || document.visibilityState !== 'visible') return
    void navigator.serviceWorker.getRegistration().then(async (reg) => {
      if (!reg) return
      const shown = await reg.getNotifications()
      const stale = new Set(staleNotifications(shown, list.panes))
      for (const n of shown) if (stale.has(n.tag)) n.close()
    })
  }, [list])
}

/**
 * On a plain-http address (not this machine) the browser offers no notifications,
 * no installing and no offline start: say so, and how to get them, instead of a
 * switch that quietly is not there.
 */
export function InsecureNote() {
  const ios = /iPhone|iPad/.test(navigator.userAgent)
  if (window.isSecureContext) {
    // iOS gives push only to a web app on the Home Screen
    const standalone = (navigator as { standalone?: boolean }).standalone === true || matchMedia('(display-mode: standalone)').matches
    if (ios && !standalone && !('PushManager' in window))
      return (
        <p class="msg insecure" role="note">
          On iPhone and iPad, notifications need this app on the Home Screen: Share → Add to Home Screen, then open it from there.
        </p>
      )
    return null
  }
  return (
    <p class="msg insecure" role="note">
      This page is not on HTTPS, so this browser offers no notifications, no home-screen app and no offline start. On the machine, run{' '}
      <code>gothalo expose</code> (Tailscale) and open the address it prints.
    </p>
  )
}
