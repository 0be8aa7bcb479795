// Fragments keyed by what their template read (issue 36). A plugin template may read any part of its
// context, but most read a few fields (the stack's name, their own entry), so keying a rendered file on
// the whole stack rendered it again for every new selection. Here a render runs once on its context
// wrapped in proxies that record each read (a property, `in`, a key listing, a descriptor, a call of a
// context function) with the value it gave; the reads of one render form a path through a trie whose
// branches are those values. A later render first walks the trie on the plain context: each recorded
// read is made again and its value picks the branch. A template is a function of what it reads, so a
// walk that reaches a leaf means the template would make the same reads, see the same values and write
// the same text: the leaf names that text in the fragment cache. A walk that falls off renders (recording)
// and adds its path. The key is every read's value, so a read that depends on another (a conditional, a
// loop's length) is keyed through the values that led to it.
//
// Objects are told apart by the order they are first met (`#3` is the fourth distinct object read), so
// the sharing of objects (the same entry reached as `self` and in `services`) is part of the key too.
// What cannot be replayed makes a template untraceable (its renderer then keys it on the whole stack): a
// write into the context, a call of a context function with an object argument, an accessor, a symbol
// key listed, an object that is not a plain object, array or function. A template that reads globals
// (the clock, the environment) is no function of its context; no key can hold that, nor could before.

type Primitive = string | number | boolean | bigint | undefined | null | symbol;
type Key = string | symbol;

const GET = 0;
const HAS = 1;
const KEYS = 2;
const DESC = 3;
const CALL = 4;

/** One read: what it did, on which object (its number), with which key or call arguments. */
interface Read { op: number; on: number; key: Key | undefined; args: Primitive[] | undefined }

interface TrieNode {
  /** the read the template makes next from here (the same for every context that reached this node) */
  read?: Read;
  /** the read's value on the one path through here (most nodes have one), and the node after it */
  value?: string;
  child?: TrieNode;
  /** the nodes after it by the read's value, once two paths part here */
  next?: Map<string, TrieNode>;
  /** the rendered text's key in the fragment cache: the render ended here */
  leaf?: string;
}

/** Functions of the context whose result depends on their arguments alone (escaping helpers): their calls need no record. */
export type PureFunctions = ReadonlySet<Function>;

/** The objects of one walk or recording, numbered in the order first met (0 is the context). */
class Numbering {
  readonly values: unknown[] = [];
  private readonly ids = new Map<unknown, number>();

  constructor(root: object) {
    this.ids.set(root, 0);
    this.values.push(root);
  }

  /** The value's part of a key: primitives by type and value, objects and functions by number (and kind when new). */
  fingerprint(v: unknown): string {
    switch (typeof v) {
      case 'string': return `s${v}`;
      case 'number': return Object.is(v, -0) ? 'n-0' : `n${v}`;
      case 'boolean': return v ? 't' : 'f';
      case 'undefined': return 'u';
      case 'bigint': return `i${v}`;
      default: {
        if (v === null) return 'z';
        const known = this.ids.get(v);
        if (known !== undefined) return `#${known}`;
        const id = this.values.length;
        this.ids.set(v, id);
        this.values.push(v);
        return `#${id}${kindOf(v)}`;
      }
    }
  }

  /** The number of an object already met. */
  idOf(v: unknown): number {
    return this.ids.get(v)!;
  }
}

/** What a read of an object can be replayed on: a plain object (o), one without prototype (n), an array (a), a function (f); else x. */
function kindOf(v: unknown): string {
  if (typeof v === 'symbol') return 'y';
  if (typeof v === 'function') return 'f';
  if (Array.isArray(v)) return 'a';
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype ? 'o' : proto === null ? 'n' : 'x';
}

function isPrimitive(v: unknown): v is Primitive {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

/** The value of a read on `on`, as the template saw it (a descriptor as its enumerability and value). */
function perform(read: Read, on: unknown, numbering: Numbering): string {
  const target = on as object;
  switch (read.op) {
    case GET: return numbering.fingerprint(Reflect.get(target, read.key!));
    case HAS: return Reflect.has(target, read.key!) ? 't' : 'f';
    case KEYS: return keysFingerprint(Reflect.ownKeys(target));
    case DESC: {
      const d = Reflect.getOwnPropertyDescriptor(target, read.key!);
      if (!d) return 'u';
      if (!('value' in d)) return 'accessor';
      return `d${d.enumerable ? 1 : 0}${numbering.fingerprint(d.value)}`;
    }
    default: return numbering.fingerprint(Reflect.apply(on as (...a: unknown[]) => unknown, undefined, read.args!));
  }
}

function keysFingerprint(keys: Key[]): string {
  return keys.some((k) => typeof k === 'symbol') ? 'symbol-keys' : `k${JSON.stringify(keys)}`;
}

/**
 * Leaves are numbered for the whole process, so a trie made again (its owner dropped the old one) never
 * names a text an old leaf put in the fragment cache.
 */
let leafSerial = 0;

/** Lookups of a template that are all made; after them, while hits keep up with misses, else one render in RECORD_EVERY (ReadTrie.worthLooking). */
const RECORDED_LOOKUPS = 16;
const RECORD_EVERY = 16;

/** Not replayable: the template is keyed on the whole stack instead. */
class Untraceable extends Error {}

/**
 * A render in progress on a recorded context: the proxies it hands out and the reads they saw, each
 * (on, key) read once (the context does not change while a template renders, so a repeat tells nothing).
 */
class Recording {
  readonly reads: [Read, string][] = [];
  readonly numbering: Numbering;
  /** set by a write or anything not replayable: the render's text is right, its key is not */
  broken = false;
  private readonly proxies: unknown[] = [];
  /** what each (op, object, key) gave the template, by op, object number and key */
  private readonly memo: Map<number, Map<Key, unknown>>[] = [new Map(), new Map(), new Map(), new Map(), new Map()];

  constructor(root: object, readonly pure: PureFunctions) {
    this.numbering = new Numbering(root);
  }

  get root(): object {
    return this.wrap(0) as object;
  }

  /**
   * A read's value as the template receives it (an object or context function behind its proxy), made on
   * the real object and recorded the first time. For a call, `key` is the arguments' key and `args` them.
   */
  read(op: number, on: number, key: Key, args?: Primitive[]): unknown {
    let byKey = this.memo[op].get(on);
    if (!byKey) this.memo[op].set(on, (byKey = new Map()));
    else if (byKey.has(key)) return byKey.get(key);
    const real = this.numbering.values[on] as object;
    const record: Read = { op, on, key: op === KEYS || op === CALL ? undefined : key, args };
    let out: unknown;
    switch (op) {
      case GET: {
        const value = Reflect.get(real, key);
        this.reads.push([record, this.numbering.fingerprint(value)]);
        out = this.outward(value, Object.hasOwn(real, key));
        break;
      }
      case HAS:
        out = Reflect.has(real, key);
        this.reads.push([record, out ? 't' : 'f']);
        break;
      case KEYS: {
        out = Reflect.ownKeys(real);
        const fp = keysFingerprint(out as Key[]);
        if (fp === 'symbol-keys') this.broken = true;
        this.reads.push([record, fp]);
        break;
      }
      case DESC: {
        const d = Reflect.getOwnPropertyDescriptor(real, key);
        if (!d) {
          this.reads.push([record, 'u']);
        } else if (!('value' in d)) {
          this.broken = true;
          this.reads.push([record, 'accessor']);
        } else {
          this.reads.push([record, `d${d.enumerable ? 1 : 0}${this.numbering.fingerprint(d.value)}`]);
          // the shadow array's length is its own non-configurable property: a proxy must say so too
          const lengthOfArray = key === 'length' && Array.isArray(real);
          out = { value: this.outward(d.value, true), writable: true, enumerable: d.enumerable, configurable: !lengthOfArray };
        }
        break;
      }
      default: {
        const value = Reflect.apply(real as (...a: unknown[]) => unknown, undefined, args!);
        this.reads.push([record, this.numbering.fingerprint(value)]);
        out = this.outward(value, true);
      }
    }
    byKey.set(key, out);
    return out;
  }

  /** An object read reaches the template behind its proxy; a pure helper or an inherited (built-in) function as it is. */
  private outward(value: unknown, own: boolean): unknown {
    if (isPrimitive(value)) return value;
    if (typeof value === 'function' && (this.pure.has(value) || !own)) return value;
    if (kindOf(value) === 'x') this.broken = true;
    return this.wrap(this.numbering.idOf(value));
  }

  private wrap(id: number): unknown {
    let proxy = this.proxies[id];
    if (proxy) return proxy;
    const real = this.numbering.values[id] as object;
    // the proxy's own target is an empty stand-in: the real objects may be frozen, and a proxy of a frozen
    // object must hand out its very properties, not proxies of them
    // (an arrow function for a function: it has no own prototype a proxy would have to list)
    const shadow = typeof real === 'function' ? (() => undefined) : Array.isArray(real) ? [] : Object.create(null);
    proxy = new Proxy(shadow, new RecordingHandler(this, id, real));
    this.proxies[id] = proxy;
    return proxy;
  }
}

/** The traps of one recorded object (a class, so a proxy costs no closures). */
class RecordingHandler implements ProxyHandler<object> {
  constructor(private readonly recording: Recording, private readonly id: number, private readonly real: object) {}

  get(_shadow: object, key: Key): unknown {
    return this.recording.read(GET, this.id, key);
  }

  has(_shadow: object, key: Key): boolean {
    return this.recording.read(HAS, this.id, key) as boolean;
  }

  ownKeys(): Key[] {
    return this.recording.read(KEYS, this.id, '') as Key[];
  }

  getOwnPropertyDescriptor(_shadow: object, key: Key): PropertyDescriptor | undefined {
    return this.recording.read(DESC, this.id, key) as PropertyDescriptor | undefined;
  }

  getPrototypeOf(): object | null {
    return Reflect.getPrototypeOf(this.real);
  }

  apply(_shadow: object, _this: unknown, args: unknown[]): unknown {
    // a call is replayed with its arguments, so they must be values, not objects
    if (!args.every(isPrimitive) || args.some((a) => typeof a === 'symbol')) {
      this.recording.broken = true;
      return Reflect.apply(this.real as (...a: unknown[]) => unknown, undefined, args);
    }
    return this.recording.read(CALL, this.id, args.map(argumentKey).join('\0'), args as Primitive[]);
  }

  construct(): object {
    throw new TypeError('a template context function is not a constructor');
  }

  // the context is read-only for a template: a write is made (as it would be without the recording) and
  // the render is not replayable
  set(_shadow: object, key: Key, value: unknown): boolean {
    this.recording.broken = true;
    return Reflect.set(this.real, key, value);
  }

  defineProperty(_shadow: object, key: Key, descriptor: PropertyDescriptor): boolean {
    this.recording.broken = true;
    return Reflect.defineProperty(this.real, key, descriptor);
  }

  deleteProperty(_shadow: object, key: Key): boolean {
    this.recording.broken = true;
    return Reflect.deleteProperty(this.real, key);
  }

  setPrototypeOf(): boolean {
    this.recording.broken = true;
    return false;
  }

  preventExtensions(): boolean {
    this.recording.broken = true;
    return false;
  }
}

/** A primitive argument as part of a key (typed, so 1 and "1" differ). */
function argumentKey(a: unknown): string {
  return typeof a === 'string' ? `s${a}` : typeof a === 'number' ? (Object.is(a, -0) ? 'n-0' : `n${a}`) : `${typeof a}${String(a)}`;
}

/**
 * The keys of one template's renders (one plugin version's template): a trie of the reads its renders
 * made, each ending in a leaf that names the text in the fragment cache.
 */
export class ReadTrie {
  private root: TrieNode = {};
  /** the number of trie nodes, for the owner's memory bound */
  nodes = 1;
  /** set when a render could not be replayed: the owner keys this template another way */
  untraceable = false;
  /** walks that reached a leaf, and walks that fell off */
  private hits = 0;
  private misses = 0;
  /** renders asked about (worthLooking) */
  private asked = 0;

  constructor(private readonly name: string) {}

  /**
   * Whether a render is worth looking up (and recording on a miss). A template's first render is not: a
   * generator that renders a template once (a fresh one, the CLI) would pay for a recording it never
   * uses. A template that misses more often than it hits (one that lists the whole stack, when requests
   * keep changing the stack) costs a walk and a recording for nothing, so after RECORDED_LOOKUPS it is
   * looked up only one render in RECORD_EVERY, enough to notice when its requests start repeating.
   */
  get worthLooking(): boolean {
    const asked = this.asked++;
    if (asked === 0) return false;
    return this.hits + this.misses < RECORDED_LOOKUPS || this.hits >= this.misses || asked % RECORD_EVERY === 0;
  }

  /** Drops the recorded reads (their texts stay in the fragment cache until it drops them), keeping the counts of hits and misses. */
  forget(): void {
    this.root = {};
    this.nodes = 1;
  }

  /** Whether its lookups hit at least as often as they miss. */
  get paying(): boolean {
    return this.hits >= this.misses;
  }

  /** The leaf of a context whose every read matches a recorded render's, or undefined. */
  find(context: object): string | undefined {
    const numbering = new Numbering(context);
    let node: TrieNode | undefined = this.root;
    while (node.leaf === undefined) {
      const read = node.read;
      if (read) {
        const value = perform(read, numbering.values[read.on], numbering);
        node = node.next ? node.next.get(value) : value === node.value ? node.child : undefined;
      }
      if (!read || !node) {
        this.misses++;
        return undefined;
      }
    }
    this.hits++;
    return node.leaf;
  }



  /**
   * Renders on a recording of `context` and adds its reads; returns the text and its leaf, or no leaf
   * when the render cannot be replayed (the trie is then untraceable). `render` gets the context to use.
   */
  record(context: object, pure: PureFunctions, render: (context: object) => string): { text: string; leaf: string | undefined } {
    const recording = new Recording(context, pure);
    const text = render(recording.root);
    if (recording.broken) {
      this.untraceable = true;
      return { text, leaf: undefined };
    }
    try {
      return { text, leaf: this.insert(recording.reads) };
    } catch (e) {
      if (!(e instanceof Untraceable)) throw e;
      this.untraceable = true;
      return { text, leaf: undefined };
    }
  }

  private insert(reads: readonly [Read, string][]): string {
    let node = this.root;
    for (const [read, value] of reads) {
      // two renders that saw the same values made different reads: the template is no function of its context
      if (node.leaf !== undefined) throw new Untraceable(this.name);
      if (!node.read) {
        node.read = read;
      } else if (!sameRead(node.read, read)) {
        throw new Untraceable(this.name);
      }
      let next = node.next ? node.next.get(value) : value === node.value ? node.child : undefined;
      if (!next) {
        next = {};
        this.nodes++;
        if (node.child === undefined && !node.next) {
          node.value = value;
          node.child = next;
        } else {
          node.next ??= new Map([[node.value!, node.child!]]);
          node.next.set(value, next);
          node.value = undefined;
          node.child = undefined;
        }
      }
      node = next;
    }
    if (node.read) throw new Untraceable(this.name);
    node.leaf ??= `${this.name}#${leafSerial++}`;
    return node.leaf;
  }
}

function sameRead(a: Read, b: Read): boolean {
  if (a.op !== b.op || a.on !== b.on || a.key !== b.key) return false;
  if (a.op !== CALL) return true;
  return a.args!.length === b.args!.length && a.args!.every((x, i) => Object.is(x, b.args![i]));
}
