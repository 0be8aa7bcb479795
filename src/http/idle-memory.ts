// Giving a burst's memory back once the server is idle. V8 keeps the heap it grew to during a burst (a
// thousand generates at once take it from ~25 to ~60 MB) and shrinks it only when its memory reducer gets
// round to it, seconds to minutes later; on a small box that peak would stay resident long after the
// burst. So once nothing has been in flight for a while after the heap grew, one full collection (the
// kind V8 runs before giving up memory) hands the free pages back. It runs only while no request is in
// flight, so no answer waits for it; a request arriving during it waits its few tens of ms.
import v8 from 'node:v8';
import vm from 'node:vm';

type FullCollection = () => void;

/** How far the heap must have grown over its size after the last collection before one is worth it. */
const GROWTH_BYTES = 8 * 1024 * 1024;

/**
 * V8's collector as a function. `--expose-gc` set at run time applies to contexts made afterwards: a new
 * context's `gc` is the same collector as the main one's. undefined where the flag is refused.
 */
function fullCollection(): FullCollection | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (options: object) => void;
    // 'last-resort' collects everything collectable and compacts, then releases the emptied pages
    return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    return undefined;
  }
}

export interface IdleMemory {
  /** the server calls this whenever a request starts or ends, with the number in flight after it */
  activity(inFlight: number): void;
  stop(): void;
}

/** Checks every `idleMs`: no request in flight for that long, and the heap grew, means one full collection. */
export function releaseMemoryWhenIdle(idleMs = 1_000, collect: FullCollection | undefined = fullCollection()): IdleMemory {
  let inFlight = 0;
  let lastActivity = performance.now();
  let settledHeap = v8.getHeapStatistics().total_heap_size;
  const timer = collect
    ? setInterval(() => {
      if (inFlight > 0 || performance.now() - lastActivity < idleMs) return;
      if (v8.getHeapStatistics().total_heap_size < settledHeap + GROWTH_BYTES) return;
      collect();
      settledHeap = v8.getHeapStatistics().total_heap_size;
    }, idleMs)
    : undefined;
  // never what keeps the process alive
  timer?.unref();
  return {
    activity(n) {
      inFlight = n;
      lastActivity = performance.now();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
