import { defineSetting, Type } from '../../sdk/index.js'

export const greetingSuffix = defineSetting('greetings.suffix', Type.String({ maxLength: 10 }), '!', 'Text appended to every greeting.')
