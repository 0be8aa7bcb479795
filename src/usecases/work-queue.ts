// Bounds the generations in flight. Rendering runs on the event loop, so a burst of generate requests
// would keep health checks and catalogue reads waiting behind all of it: each job starts on its own
// turn of the loop (setImmediate), so other requests are answered between jobs, and beyond `maxQueued`
// waiting jobs the request is refused with 503 and Retry-After rather than queued without end.
import { ApiError } from '../errors.js';

export class WorkQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** told how long each job waited for its turn, in seconds (the metrics) */
  onTurn?: (seconds: number) => void;

  constructor(private readonly concurrency: number, private readonly maxQueued: number) {}

  get waitingCount(): number { return this.waiting.length; }
  get runningCount(): number { return this.running; }

  async run<T>(job: () => T | Promise<T>): Promise<T> {
    const queued = performance.now();
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxQueued) {
        throw new ApiError('SERVICE_UNAVAILABLE', `the server is generating ${this.running + this.waiting.length} stacks already; try again in a second`, { headers: { 'Retry-After': '1' } });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      // start on a new turn of the loop, after the I/O that queued up meanwhile
      await new Promise((resolve) => setImmediate(resolve));
      this.onTurn?.((performance.now() - queued) / 1000);
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
