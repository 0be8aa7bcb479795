// Calls to the Stackwright HTTP API: the catalogue reads are public, validate and generate carry the key.
// The key lives in sessionStorage: it is asked once and forgotten when the tab closes.

const STORAGE_KEY = 'stackwright.apiKey';

export const apiKey = {
  get: () => sessionStorage.getItem(STORAGE_KEY) ?? '',
  set: (value) => sessionStorage.setItem(STORAGE_KEY, value),
  clear: () => sessionStorage.removeItem(STORAGE_KEY),
};

/** A refused call: the envelope's code, message and details, and the wait for a 429 or 503. */
export class ApiFailure extends Error {
  constructor(status, code, message, details, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }

  /** One sentence for the user, beside the action that failed. */
  describe() {
    if (this.status === 401) return `The API key was refused (${this.message}), so the page forgot it: enter the key of this server again above.`;
    if (this.status === 429) return `Too many requests: ${retryText(this.retryAfter ?? 5)}. (${this.message})`;
    if (this.status === 503) return `The server is busy: ${retryText(this.retryAfter ?? 1)}.`;
    if (this.status === 0) return `The server cannot be reached: ${this.message}`;
    return this.message;
  }
}

/** "try again in 42 s (at 14:03:10)": the wait and the clock time it ends. */
export function retryText(seconds) {
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString('en-GB');
  return `try again in ${seconds} s (at ${at})`;
}

async function failure(res) {
  let error = { code: 'HTTP_' + res.status, message: `the server answered ${res.status}` };
  try {
    const body = await res.json();
    if (body && body.error) error = body.error;
  } catch { /* not an envelope */ }
  const retry = Number(res.headers.get('Retry-After'));
  return new ApiFailure(res.status, error.code, error.message, error.details, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

async function call(path, init) {
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiFailure(0, 'NETWORK', e.message);
  }
  if (!res.ok) throw await failure(res);
  return res;
}

/** The data of a public GET. */
export async function getData(path) {
  const res = await call(path, { headers: { Accept: 'application/json' } });
  return (await res.json()).data;
}

/** POST with the key; the data of the envelope, or the Response itself when `raw` (the tar download). */
export async function post(path, body, { signal, raw = false } = {}) {
  const res = await call(path, {
    method: 'POST',
    signal,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey.get()}` },
    body: JSON.stringify(body),
  });
  return raw ? res : (await res.json()).data;
}
