import * as tf from "@tensorflow/tfjs-core";

interface WasmBackendInternals {
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array;
}

/**
 * Per-layer keys and values `[B, KV, S, hd]` of a batch being decoded. On tfjs-wasm the cache is
 * allocated once for every position it will hold and each step's key and value are written into it
 * in place: appending by concat copies the whole cache every step, a cost that grows with the length
 * (an eighth of a decoding step at 64 new tokens). Products then read its first {@link length}
 * positions (batch-matmul.ts's `bRows`). Elsewhere it grows by concat, as before.
 */
export class KvCache {
  private constructor(
    private k: tf.Tensor4D[],
    private v: tf.Tensor4D[],
    /** Positions filled. */
    public length: number,
    private readonly inPlace: boolean,
  ) {}

  /** Takes over a prefill's caches (`length` positions each), with room for `capacity` positions. */
  static from(k: tf.Tensor4D[], v: tf.Tensor4D[], capacity: number): KvCache {
    const length = k[0]?.shape[2] ?? 0;
    if (tf.getBackend() !== "wasm" || capacity <= length) return new KvCache(k, v, length, false);
    const grow = (parts: tf.Tensor4D[]) =>
      parts.map((part) => {
        const [b, h, , d] = part.shape;
        const room = tf.zeros([b, h, capacity, d]) as tf.Tensor4D;
        write(room, part, 0);
        part.dispose();
        return room;
      });
    return new KvCache(grow(k), grow(v), length, true);
  }

  /** Adds a step's key and value `[B, KV, 1, hd]` to layer `i`; returns the layer's cache to attend to. */
  append(i: number, key: tf.Tensor4D, value: tf.Tensor4D): { k: tf.Tensor4D; v: tf.Tensor4D; used: number } {
    if (this.inPlace) {
      write(this.k[i] as tf.Tensor4D, key, this.length);
      write(this.v[i] as tf.Tensor4D, value, this.length);
    } else {
      const old = [this.k[i] as tf.Tensor4D, this.v[i] as tf.Tensor4D];
      this.k[i] = tf.keep(tf.concat([old[0] as tf.Tensor4D, key], 2));
      this.v[i] = tf.keep(tf.concat([old[1] as tf.Tensor4D, value], 2));
      tf.dispose(old);
    }
    return { k: this.k[i] as tf.Tensor4D, v: this.v[i] as tf.Tensor4D, used: this.length + 1 };
  }

  /** Ends a step: every layer got its key and value. */
  advance(): void {
    this.length++;
  }

  /** Keeps only the batch rows in `rows`. */
  select(rows: number[]): void {
    const next = tf.tidy(() => {
      const index = tf.tensor1d(rows, "int32");
      return { k: this.k.map((t) => tf.gather(t, index)), v: this.v.map((t) => tf.gather(t, index)) };
    });
    this.dispose();
    this.k = next.k;
    this.v = next.v;
  }

  dispose(): void {
    tf.dispose([...this.k, ...this.v]);
  }
}

/**
 * Copies `part` `[B, KV, n, hd]` into positions `at`..`at + n − 1` of `cache` `[B, KV, S, hd]` in wasm
 * memory. The cache is this class's own tensor, never shared, so writing into it is safe.
 */
function write(cache: tf.Tensor4D, part: tf.Tensor4D, at: number): void {
  const be = tf.backend() as unknown as WasmBackendInternals;
  const to = be.typedArrayFromHeap(cache);
  const from = be.typedArrayFromHeap(part);
  const [b, h, s, d] = cache.shape;
  const n = part.shape[2];
  for (let row = 0; row < b * h; row++)
    to.set(from.subarray(row * n * d, (row + 1) * n * d), (row * s + at) * d);
}
