// The second thread of parallel-hash.ts and the job table both threads share: one Int32Array of counters and
// job slots over a SharedArrayBuffer, the files' UTF-8 bytes in a second, the digests in a third. The worker
// takes queued files, hashes their bytes and marks each done; it never decides anything (a job is the main
// thread's to queue, take back or reuse). It is plain JavaScript run from a string, with no loader of the
// parent's (tsx in the tests and the bench): its isolate holds this loop and node:crypto alone, a few MB.
export interface SharedTables {
  control: Int32Array;
  data: SharedArrayBuffer;
  digests: SharedArrayBuffer;
}

/** Counters at the head of `control`. */
export const JOB = {
  /** bumped on every change a waiting worker must see (a job queued, the table reset) */
  seq: 0,
  /** how many slots the current batch uses */
  count: 1,
  /** how many files the worker has hashed since it started */
  byWorker: 2,
  HEAD: 4,
  /** Int32 fields a slot takes */
  SLOT: 4,
} as const;

/** A slot's life: queued by the main thread, claimed by whichever thread hashes it, done, or taken back. */
export const STATE = { empty: 0, queued: 1, claimed: 2, done: 3, cancelled: 4 } as const;

const FIELDS = { state: 0, offset: 1, length: 2 } as const;

/** The index in `control` of slot `i`'s field. */
export function jobField(i: number, field: keyof typeof FIELDS): number {
  return JOB.HEAD + i * JOB.SLOT + FIELDS[field];
}

/** What the worker reads of the table's layout, handed over with the tables so it is written down once. */
export const WORKER_LAYOUT = {
  seq: JOB.seq,
  count: JOB.count,
  byWorker: JOB.byWorker,
  // a slot's fields, as offsets from slot 0's
  state: jobField(0, 'state'),
  offset: jobField(0, 'offset'),
  length: jobField(0, 'length'),
  slot: JOB.SLOT,
  queued: STATE.queued,
  claimed: STATE.claimed,
  done: STATE.done,
};

export const HASH_WORKER_SOURCE = `
const crypto = require('node:crypto');
const { workerData } = require('node:worker_threads');
const { control, data, digests, layout: L } = workerData;
const bytes = new Uint8Array(data);
const out = new Uint8Array(digests);
for (;;) {
  // read before the scan: a job queued during the scan changes it, so the wait below returns at once
  const seq = Atomics.load(control, L.seq);
  const count = Atomics.load(control, L.count);
  let took = false;
  for (let i = 0; i < count; i++) {
    const state = L.state + i * L.slot;
    if (Atomics.compareExchange(control, state, L.queued, L.claimed) !== L.queued) continue;
    const offset = control[L.offset + i * L.slot];
    const length = control[L.length + i * L.slot];
    out.set(crypto.createHash('sha256').update(bytes.subarray(offset, offset + length)).digest(), i * 32);
    Atomics.store(control, state, L.done);
    Atomics.notify(control, state);
    Atomics.add(control, L.byWorker, 1);
    took = true;
  }
  if (!took) Atomics.wait(control, L.seq, seq);
}
`;
