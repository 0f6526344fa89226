/** The frame of the screens reached signed out (the sign-in, the password reset, the second-factor setup): a card, and the language switch under it. */
import { Center, Paper, Stack } from '@mantine/core'
import type { ReactNode } from 'react'
import { LanguageSwitch } from './LanguageSwitch'

export function SignedOutFrame({ children, width = 400 }: { children: ReactNode; width?: number }) {
  return (
    <Center mih="100vh" p="md" component="main" id="main">
      <Paper withBorder shadow="sm" p="xl" w={width} maw="100%" radius="md">
        <Stack>
          {children}
          <LanguageSwitch />
        </Stack>
      </Paper>
    </Center>
  )
}
