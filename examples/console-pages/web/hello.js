// The console imports this module and calls mount(element, host) when the page opens
// (docs/ui.md): draw into `element`, call the API with host.fetch, return how to clean up.
export function mount(element, host) {
  const h = document.createElement('h1')
  h.textContent = host.language === 'ru' ? 'Привет от модуля' : 'Hello from a plugin'
  const p = document.createElement('p')
  p.dataset.testid = 'hello-devices'
  element.append(h, p)
  const ctrl = new AbortController()
  host.fetch('/api/v1/devices?per_page=1', { signal: ctrl.signal })
    .then((r) => r.json())
    .then((b) => { p.textContent = (host.language === 'ru' ? 'Устройств: ' : 'Devices: ') + b.total })
    .catch(() => {})
  return () => ctrl.abort()
}
