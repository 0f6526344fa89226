/**
 * Mantine's colours at WCAG AA's 4.5:1 for normal text. A filled badge or button writes white on its
 * colour's shade 8 (the primary shade), and a light one writes shade 9 on shade 1: for green, yellow,
 * orange, teal, lime, cyan and red these fall short (white on green 8 is 3.3:1, on yellow 8 1.9:1; green 9
 * on green 1 is 3.8:1), and axe-core (console-a11y.test.ts) finds them on the dashboard, the audit
 * log and the deploys. Each colour's filled and light-text variables are darkened in small steps until
 * they meet the ratio; those that already do (blue, grey, violet…) are left as Mantine draws them.
 */
import { darken, luminance, type CSSVariablesResolver, type MantineTheme } from '@mantine/core'

const AA = 4.6 // 4.5 and a little room for the browser's rounding

const ratio = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

/** `color` darkened by 5 % steps until it reaches AA against `on`. */
function legibleOn(color: string, on: string): string {
  let c = color
  for (let step = 1; ratio(c, on) < AA && step <= 12; step++) c = darken(color, step * 0.05)
  return c
}

/** The light scheme's filled, text and light-text variables of every theme colour, where Mantine's fall short. */
export function legibleColors(theme: MantineTheme, primaryShade: number): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const [name, shades] of Object.entries(theme.colors)) {
    if (name === 'dark') continue // the dark scheme's greys, not a colour drawn on white
    const filled = legibleOn(shades[primaryShade], '#ffffff')
    if (filled !== shades[primaryShade]) {
      vars[`--mantine-color-${name}-filled`] = filled
      vars[`--mantine-color-${name}-text`] = filled
    }
    const lightText = legibleOn(shades[9], shades[1])
    if (lightText !== shades[9]) vars[`--mantine-color-${name}-light-color`] = lightText
  }
  return vars
}

export const contrastResolver =
  (primaryShade: number, extra: (theme: MantineTheme) => Record<string, string>): CSSVariablesResolver =>
  (theme) => ({ variables: {}, light: { ...legibleColors(theme, primaryShade), ...extra(theme) }, dark: {} })
