/**
 * A map bounded in bytes that lets its least recently used entries go first, on a linked list so
 * that every step is O(1). (An LRU on a Map's insertion order finds the entry to evict by
 * iterating from the Map's front, where V8 leaves the slots of deleted entries until it rehashes:
 * once full, as in a walk of 100,000 ports, every eviction could cross thousands of them.)
 */

interface Node<V> {
  readonly key: string;
  value: V;
  bytes: number;
  /** Neighbours in recency order: `older` towards the next to go. */
  older: Node<V> | undefined;
  newer: Node<V> | undefined;
}

export class ByteLru<V> {
  private readonly nodes = new Map<string, Node<V>>();
  private oldest: Node<V> | undefined;
  private newest: Node<V> | undefined;
  private bytes = 0;

  /**
   * @param onEvict told of each entry the bound pushed out (not of those deleted or replaced); it
   *   may change this map (the eviction reads its state afresh after each call).
   */
  constructor(
    private readonly maxBytes: number,
    private readonly onEvict: (key: string, value: V) => void = () => {},
  ) {}

  /** The value, now the most recently used. */
  get(key: string): V | undefined {
    const node = this.nodes.get(key);
    if (!node) return undefined;
    if (node !== this.newest) {
      this.unlink(node);
      this.append(node);
    }
    return node.value;
  }

  /**
   * Keeps `value` as the most recently used, replacing the key's value, and lets the oldest go
   * while over the bound. Returns false (keeping nothing) when `bytes` alone exceeds it.
   */
  set(key: string, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    const node: Node<V> = { key, value, bytes, older: undefined, newer: undefined };
    this.nodes.set(key, node);
    this.bytes += bytes;
    this.append(node);
    this.evictOverflow();
    return true;
  }

  /** Counts the key's entry as `bytes` from now on (its value grew or shrank), evicting if need be. */
  resize(key: string, bytes: number): void {
    const node = this.nodes.get(key);
    if (!node) return;
    this.bytes += bytes - node.bytes;
    node.bytes = bytes;
    this.evictOverflow();
  }

  /**
   * Counts `bytes` (negative to give them back) that belong to no one entry but to what the
   * entries share, evicting if need be.
   */
  charge(bytes: number): void {
    this.bytes += bytes;
    this.evictOverflow();
  }

  /** Removes the key's entry without telling `onEvict`; returns its value. */
  delete(key: string): V | undefined {
    const node = this.nodes.get(key);
    if (!node) return undefined;
    this.remove(node);
    return node.value;
  }

  /** Entries and bytes held. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.nodes.size, bytes: this.bytes };
  }

  private evictOverflow(): void {
    while (this.bytes > this.maxBytes && this.oldest) {
      const node = this.oldest;
      this.remove(node);
      this.onEvict(node.key, node.value);
    }
  }

  private remove(node: Node<V>): void {
    this.unlink(node);
    this.nodes.delete(node.key);
    this.bytes -= node.bytes;
  }

  private unlink(node: Node<V>): void {
    if (node.older) node.older.newer = node.newer;
    else this.oldest = node.newer;
    if (node.newer) node.newer.older = node.older;
    else this.newest = node.older;
    node.older = node.newer = undefined;
  }

  private append(node: Node<V>): void {
    node.older = this.newest;
    if (this.newest) this.newest.newer = node;
    else this.oldest = node;
    this.newest = node;
  }
}
