import { defineSetting, Type } from '@portcullis/sdk'

export const greetingSuffix = defineSetting('greetings.suffix', Type.String({ maxLength: 10 }), '!', 'Text appended to every greeting.')
