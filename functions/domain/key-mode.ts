/** The world an API key acts in: `live` publishes for real, `test` runs through the sandbox. */
export type KeyMode = 'live' | 'test';
