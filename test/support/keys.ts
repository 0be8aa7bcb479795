// The API keys every test server is started with: one place, strong enough for STACK_API_KEY's rule
// (src/config.ts keyWeakness: at least 24 characters, at least 10 different ones).
export const KEY = 'test-key-one-4f9c2a7be81d5306';
export const SECOND_KEY = 'test-key-two-93e0d1c6a57b284f';
