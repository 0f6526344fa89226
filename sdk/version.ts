/** The SDK's own version. A plugin states the range it was built for (`sdk: '^0.1.0'`). */
export const SDK_VERSION = '0.1.0'
