/**
 * A binary min-heap of (expiry, id) pairs: the sweep's order when sessions of different TTLs share a
 * store (a node:cluster primary holds every env's), where the order they were written in is not the
 * order they expire in. Entries are never removed or changed in place: a session renewed later gets
 * a new entry, and a popped entry whose record now expires later (or is gone) is stale, so the store
 * checks each popped id against its record. `compact` drops the stale ones when they pile up.
 */
export class ExpiryQueue {
  #at: number[] = [];
  #ids: string[] = [];

  get size(): number {
    return this.#at.length;
  }

  push(at: number, id: string): void {
    this.#at.push(at);
    this.#ids.push(id);
    this.#up(this.#at.length - 1);
  }

  /** The earliest expiry, or undefined when empty. */
  peek(): number | undefined {
    return this.#at[0];
  }

  /** Removes and returns the id of the earliest entry at or before `now`. */
  popDue(now: number): string | undefined {
    const top = this.#at[0];
    if (top === undefined || top > now) return undefined;
    const id = this.#ids[0] as string;
    const lastAt = this.#at.pop() as number;
    const lastId = this.#ids.pop() as string;
    if (this.#at.length > 0) {
      this.#at[0] = lastAt;
      this.#ids[0] = lastId;
      this.#down(0);
    }
    return id;
  }

  /** Rebuilds from the live pairs only. */
  compact(live: Iterable<[at: number, id: string]>): void {
    this.#at = [];
    this.#ids = [];
    for (const [at, id] of live) this.push(at, id);
  }

  #swap(i: number, j: number): void {
    [this.#at[i], this.#at[j]] = [this.#at[j] as number, this.#at[i] as number];
    [this.#ids[i], this.#ids[j]] = [this.#ids[j] as string, this.#ids[i] as string];
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.#at[parent] as number) <= (this.#at[i] as number)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#at.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < n && (this.#at[l] as number) < (this.#at[min] as number)) min = l;
      if (r < n && (this.#at[r] as number) < (this.#at[min] as number)) min = r;
      if (min === i) return;
      this.#swap(i, min);
      i = min;
    }
  }
}
