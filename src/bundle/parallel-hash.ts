// The sha256 of a bundle's files (stackwright.json records them) on a second thread, while the main thread
// renders the rest of the bundle (issue 36: at 200 services the ~0.9 MB a new selection writes cost ~1 ms
// of hashing, about a tenth of the render). A file is queued as soon as it is final: its UTF-8 bytes go to
// shared memory and the worker (hash-worker.ts) hashes them; when the record is written, what the worker has
// not taken the main thread hashes itself, so the two share the last files. Every path out of the second
// thread ends in the main thread's own hash: no worker (one core, the CLI), a file that does not fit, a
// worker that does not answer.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { HASH_WORKER_SOURCE, JOB, jobField, STATE, WORKER_LAYOUT, type SharedTables } from './hash-worker.js';

/** The hashes a record can take as they are, by file path. */
export interface FileHashes {
  get(file: string): string | undefined;
}

/** One bundle's hashes: those known before (a skill's), and those queued to be made. */
export interface HashBatch extends FileHashes {
  known(file: string, hash: string): void;
  /** `content`: the file's text or its chunks (text-chunks.ts); the file must not change after */
  submit(file: string, content: string | readonly string[]): void;
  /** starts what was submitted since the last call (one wake of the second thread for many files) */
  start(): void;
}

export interface FileHasher {
  /** a batch for the next bundle; the one before is over (its hashes are read before this is called) */
  batch(): HashBatch;
}

/** Only the known hashes: the record hashes every other file itself, on the main thread. */
class KnownHashes implements HashBatch {
  protected readonly hashes = new Map<string, string>();

  known(file: string, hash: string): void {
    this.hashes.set(file, hash);
  }

  // nothing is hashed ahead: the record hashes what it does not know (a hash known for another text of the path goes)
  submit(file: string, _content: string | readonly string[]): void {
    this.hashes.delete(file);
  }

  start(): void {}

  get(file: string): string | undefined {
    return this.hashes.get(file);
  }
}

export const inThreadHasher: FileHasher = { batch: () => new KnownHashes() };

/**
 * The worker's name, which Node also gives its system thread (at most 15 characters there): what `top -H` and
 * /proc/<pid>/task/<tid>/comm show for it, apart from other workers in the process (a loader's, say).
 */
export const HASH_THREAD_NAME = 'hash-thread';

/** Shorter files are hashed where the record is written: queuing one costs about what hashing it does. */
const QUEUED_MIN_CHARS = 2048;
/** How long the main thread waits for a file the worker took before it stops trusting the worker. */
const WAIT_MS = 2000;
/** How long it spins on such a file before it sleeps: about the worker's time for the largest file queued (~0.3 ms). */
const SPIN_MS = 1;

/**
 * The second thread and its tables. One batch is open at a time (a render is synchronous): opening the next
 * takes back what the last left queued and waits for what the worker is hashing, so no slot or byte is
 * reused while the worker reads it.
 */
export class ParallelHasher implements FileHasher {
  private readonly tables: SharedTables;
  private readonly bytes: Buffer;
  private readonly digests: Buffer;
  private worker: Worker | undefined;
  /** the batch the tables belong to */
  private current: WorkerBatch | undefined;

  constructor(readonly dataBytes = 4 * 1024 * 1024, readonly slots = 1024) {
    this.tables = {
      control: new Int32Array(new SharedArrayBuffer(4 * (JOB.HEAD + slots * JOB.SLOT))),
      data: new SharedArrayBuffer(dataBytes),
      digests: new SharedArrayBuffer(32 * slots),
    };
    this.bytes = Buffer.from(this.tables.data);
    this.digests = Buffer.from(this.tables.digests);
    try {
      // loaded here, not imported: the CLI, which never starts the thread, does not pay for the module (~1.4 ms)
      const { Worker } = process.getBuiltinModule('node:worker_threads');
      // its heap holds a hash object at a time: the smallest young generation, and no loader of ours (execArgv)
      this.worker = new Worker(HASH_WORKER_SOURCE, {
        eval: true, execArgv: [], workerData: { ...this.tables, layout: WORKER_LAYOUT }, name: HASH_THREAD_NAME,
        resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
      });
      this.worker.unref();
      this.worker.on('error', () => this.retire());
    } catch {
      this.worker = undefined;
    }
  }

  /** How many files the second thread has hashed (the rest were hashed where the record is written). */
  get hashedByWorker(): number {
    return Atomics.load(this.tables.control, JOB.byWorker);
  }

  /** Whether a second thread is worth starting here: more than one core to run it on. */
  static useful(): boolean {
    return os.availableParallelism() > 1;
  }

  batch(): HashBatch {
    if (this.current) this.close(this.current);
    if (!this.worker) return new KnownHashes();
    this.current = new WorkerBatch(this);
    return this.current;
  }

  /** Stops the worker; every later batch hashes on the main thread. */
  retire(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.current = undefined;
    void worker?.terminate();
  }

  /** Queues `content` in slot `slot` at `offset`; the bytes written, or -1 where it does not fit. */
  queue(slot: number, offset: number, content: string | readonly string[]): number {
    if (!this.worker || slot >= this.slots) return -1;
    const { control } = this.tables;
    // UTF-8 takes at most 3 bytes a UTF-16 unit: a bound checked before writing, never a partial file
    let length = 0;
    if (typeof content === 'string') {
      if (offset + 3 * content.length > this.dataBytes) return -1;
      length = this.bytes.write(content, offset, 'utf8');
    } else {
      let chars = 0;
      for (let i = 0; i < content.length; i++) chars += content[i].length;
      if (offset + 3 * chars > this.dataBytes) return -1;
      for (let i = 0; i < content.length; i++) length += this.bytes.write(content[i], offset + length, 'utf8');
    }
    control[jobField(slot, 'offset')] = offset;
    control[jobField(slot, 'length')] = length;
    Atomics.store(control, jobField(slot, 'state'), STATE.queued);
    Atomics.store(control, JOB.count, slot + 1);
    return length;
  }

  /** Wakes the worker for what was queued (a wake is a system call: one for each group of files). */
  wake(): void {
    const { control } = this.tables;
    Atomics.add(control, JOB.seq, 1);
    Atomics.notify(control, JOB.seq);
  }

  /**
   * The hash of slot `slot`: hashed here if the worker has not taken it. If it has, this thread first hashes what
   * is still queued from the far end of the table (the worker takes from the near end), then waits: a spin of
   * up to SPIN_MS, as the worker is mid-file, before it sleeps (a wake from sleep costs tens of µs here).
   */
  take(batch: WorkerBatch, slot: number): string | undefined {
    if (batch !== this.current) return undefined;
    const { control } = this.tables;
    const state = jobField(slot, 'state');
    if (this.claim(slot)) return this.hashHere(slot).toString('hex');
    if (Atomics.load(control, state) === STATE.claimed) {
      for (let other = Atomics.load(control, JOB.count) - 1; other > slot; other--) {
        if (this.claim(other)) this.digests.set(this.hashHere(other), other * 32);
      }
      const until = performance.now() + SPIN_MS;
      while (Atomics.load(control, state) === STATE.claimed && performance.now() < until) { /* the worker is mid-file */ }
      if (Atomics.load(control, state) === STATE.claimed && Atomics.wait(control, state, STATE.claimed, WAIT_MS) === 'timed-out') {
        this.retire();
        return undefined;
      }
    }
    return this.digests.toString('hex', slot * 32, slot * 32 + 32);
  }

  /** Takes slot `slot` for this thread, if it is still queued. */
  private claim(slot: number): boolean {
    return Atomics.compareExchange(this.tables.control, jobField(slot, 'state'), STATE.queued, STATE.claimed) === STATE.queued;
  }

  /** Hashes a slot this thread claimed and marks it done (its digest is the caller's to keep or write to the table). */
  private hashHere(slot: number): Buffer {
    const { control } = this.tables;
    const offset = control[jobField(slot, 'offset')];
    const digest = crypto.createHash('sha256').update(this.bytes.subarray(offset, offset + control[jobField(slot, 'length')])).digest();
    Atomics.store(control, jobField(slot, 'state'), STATE.done);
    return digest;
  }

  /** Takes back what `batch` left queued and waits for what the worker holds, then empties the table. */
  private close(batch: WorkerBatch): void {
    const { control } = this.tables;
    const count = Atomics.load(control, JOB.count);
    for (let slot = 0; slot < count; slot++) {
      const state = jobField(slot, 'state');
      if (Atomics.compareExchange(control, state, STATE.queued, STATE.cancelled) === STATE.claimed
        && Atomics.wait(control, state, STATE.claimed, WAIT_MS) === 'timed-out') {
        this.retire();
        return;
      }
    }
    Atomics.store(control, JOB.count, 0);
    Atomics.add(control, JOB.seq, 1);
    batch.closed = true;
    this.current = undefined;
  }
}

/**
 * A bundle's batch on the worker: each queued file's slot and the text it was queued with, its hash taken when
 * the record asks. The last call for a path counts: a path queued again with another text (a target that
 * rewrites a file), or known after it was queued, is hashed as that.
 */
class WorkerBatch extends KnownHashes {
  private readonly queued = new Map<string, { slot: number; content: string | readonly string[]; hash?: string }>();
  private next = 0;
  private offset = 0;
  /** files queued since the worker was last woken */
  private waiting = false;
  closed = false;

  constructor(private readonly hasher: ParallelHasher) {
    super();
  }

  known(file: string, hash: string): void {
    super.known(file, hash);
    this.queued.delete(file);
  }

  submit(file: string, content: string | readonly string[]): void {
    if (this.closed || this.queued.get(file)?.content === content) return;
    super.submit(file, content);
    this.queued.delete(file);
    if (typeof content === 'string' && content.length < QUEUED_MIN_CHARS) return;
    const slot = this.next;
    const length = this.hasher.queue(slot, this.offset, content);
    if (length < 0) return;
    this.next++;
    this.offset += length;
    this.queued.set(file, { slot, content });
    this.waiting = true;
  }

  start(): void {
    if (!this.waiting || this.closed) return;
    this.waiting = false;
    this.hasher.wake();
  }

  get(file: string): string | undefined {
    const known = this.hashes.get(file);
    if (known !== undefined) return known;
    const entry = this.queued.get(file);
    if (entry === undefined || this.closed) return undefined;
    return (entry.hash ??= this.hasher.take(this, entry.slot));
  }
}

let shared: FileHasher | undefined;

/**
 * The text a bundle gives the record to hash from which the second thread is worth its memory: a worker is ~13 MB
 * of the service's resident set, and what it saves a render is about what hashing the queued files costs less the
 * queuing (~0.6 ms a MB here). A full-stack bundle queues ~0.25 M characters (it saved ~0.07 ms); one of ~80 services
 * and more queues past this (at 200 services, ~1.2 M: ~0.4 ms, 0.93 of the render).
 */
export const WORKER_WORTH_CHARS = 512 * 1024;

/**
 * A bundle hashed on the main thread that counts what it was given to hash, and says once when that reaches `enough`.
 * A file is counted once: the render gives some files twice (as each is done, and with the rest at the end).
 */
class CountingBatch extends KnownHashes {
  private chars = 0;
  private readonly counted = new Set<string>();

  constructor(private readonly enough: number, private readonly reached: () => void) {
    super();
  }

  submit(file: string, content: string | readonly string[]): void {
    super.submit(file, content);
    if (this.chars >= this.enough || this.counted.has(file)) return;
    this.counted.add(file);
    if (typeof content === 'string') this.chars += content.length;
    else for (let i = 0; i < content.length; i++) this.chars += content[i].length;
    if (this.chars >= this.enough) this.reached();
  }
}

/**
 * The process's hasher for long-lived generators (the service, the MCP server), shared by every generator (a
 * reload's included). Where there is more than one core its thread starts once a bundle has given
 * WORKER_WORTH_CHARS to hash, when the event loop next turns (a worker's start is ~2-3 ms of this thread: after
 * that request, not in it); a service that renders only stacks of a preset's size, or only reads, holds no worker.
 * `enabled`: false (STACK_HASH_THREAD=0) hashes on the request's thread.
 */
export function processHasher(enabled = true): FileHasher {
  if (!enabled) return inThreadHasher;
  if (shared) return shared;
  if (!ParallelHasher.useful()) return (shared = inThreadHasher);
  let hasher: ParallelHasher | undefined;
  let starting = false;
  const worthIt = () => {
    if (starting) return;
    starting = true;
    setImmediate(() => (hasher = new ParallelHasher()));
  };
  return (shared = { batch: () => hasher?.batch() ?? new CountingBatch(WORKER_WORTH_CHARS, worthIt) });
}
