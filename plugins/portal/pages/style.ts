/**
 * The pages' stylesheet (served at /portal/assets/portal.css) and a portal's colours
 * (/portal/{slug}/theme.css). Fluid: one column, no fixed widths, readable on a 320 px phone.
 * Default colours meet WCAG AA contrast (text 15:1, links and buttons above 7:1 on white).
 */
import type { PortalRow } from '../tables.js'

export const PORTAL_CSS = `:root{--primary:#1a4f8b;--on-primary:#ffffff;--bg:#f4f6f8;--text:#1b1f23;--error:#a4161a}
*{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;font-size:100%;line-height:1.5;color:var(--text);background:var(--bg)}
body{margin:0;padding:0 1rem 2rem}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}
.banner,main,footer{max-width:34rem;margin:0 auto}
.banner{display:flex;align-items:center;gap:.75rem;padding:1rem 0}
.logo{max-height:3rem;max-width:40%;height:auto}
.site{font-weight:600;margin:0;overflow-wrap:anywhere}
main{color:#1b1f23;background:#fff;border-radius:.5rem;padding:1rem 1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.5rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
section{border-top:1px solid #d0d7de;padding-top:.5rem}
p,li,dd{overflow-wrap:anywhere}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
label.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
input[type=text],input[type=email],input[type=password]{width:100%;font-size:1rem;padding:.6rem;border:1px solid #57606a;border-radius:.25rem}
input[aria-invalid=true]{border:2px solid var(--error)}
button{display:inline-block;margin-top:1rem;font-size:1rem;padding:.65rem 1.25rem;border:0;border-radius:.25rem;background:var(--primary);color:var(--on-primary);cursor:pointer;min-height:2.75rem}
button.secondary{background:#fff;color:var(--primary);border:2px solid var(--primary)}
a{color:var(--primary)}
.error{color:var(--error);font-weight:600}
.alert{border-left:4px solid var(--error);padding:.25rem .75rem;margin:1rem 0}
.push-number{font-size:3.5rem;text-align:center;margin:.5rem 0;letter-spacing:.1em}
.terms{max-height:12rem;overflow:auto;border:1px solid #d0d7de;padding:0 .75rem;font-size:.9rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}
dt{font-weight:600}
dd{margin:0}
footer{padding:1rem 0;text-align:center}
footer a{color:var(--text)}
.actions{display:flex;flex-wrap:wrap;gap:.75rem}
`

const HEX = /^#[0-9a-fA-F]{6}$/

function luminance(hex: string): number {
  const ch = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)

/**
 * A portal's colours as CSS variables. Only `#rrggbb` values are written (anything else keeps the
 * default), and the button text is black or white, whichever reads better on the brand colour.
 */
export function themeCss(p: PortalRow): string {
  const out: string[] = []
  const primary = p.branding.primary_colour
  if (primary && HEX.test(primary)) {
    const l = luminance(primary)
    out.push(`--primary:${primary}`, `--on-primary:${contrast(l, 1) >= contrast(l, 0) ? '#ffffff' : '#000000'}`)
  }
  const bg = p.branding.background_colour
  if (bg && HEX.test(bg)) out.push(`--bg:${bg}`, `--text:${luminance(bg) > 0.18 ? '#1b1f23' : '#f4f6f8'}`)
  return `:root{${out.join(';')}}\n`
}
