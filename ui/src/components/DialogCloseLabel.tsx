/**
 * Every dialog's and drawer's ✕ named in the screen's language ("Close" / "Закрыть"): Mantine's close
 * button is an icon with no text of its own, which axe-core reports as a button without a name
 * (critical) and a screen reader announces as "button". One default for all, where a dialog names
 * its own (the quick search) that one wins.
 */
import { Drawer, MantineThemeProvider, Modal, createTheme } from '@mantine/core'
import { useMemo, type ReactNode } from 'react'
import { useI18n } from '../i18n'

export function DialogCloseLabel({ children }: { children: ReactNode }) {
  const { t } = useI18n()
  const theme = useMemo(() => {
    const closeButtonProps = { 'aria-label': t.config.close }
    return createTheme({ components: { Modal: Modal.extend({ defaultProps: { closeButtonProps } }), Drawer: Drawer.extend({ defaultProps: { closeButtonProps } }) } })
  }, [t])
  return <MantineThemeProvider theme={theme}>{children}</MantineThemeProvider>
}
