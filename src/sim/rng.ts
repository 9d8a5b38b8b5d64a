// Seeded, deterministic randomness for the simulator: integer hashes and a small PRNG. The market,
// the company data and the fault injector draw from here, never from Math.random, so the same seed
// gives the same market byte for byte.

/** 32-bit finaliser of MurmurHash3: a fast, well-mixed integer hash. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes any number of integers (each taken modulo 2^32 through two halves) into 32 bits. */
export function hashInts(...xs: number[]): number {
  let h = 0x9e3779b9;
  for (const x of xs) {
    const lo = x | 0;
    const hi = Math.floor(x / 4294967296) | 0;
    h = fmix32(h ^ lo) + 0x7f4a7c15;
    h = fmix32(h ^ hi);
  }
  return h >>> 0;
}

/** Hashes a string (FNV-1a then mixed) into 32 bits. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h >>> 0);
}

/** A uniform number in [0, 1) from a hash of the given integers. */
export const unitHash = (...xs: number[]): number => hashInts(...xs) / 4294967296;

/** mulberry32: a tiny, fast PRNG good enough for synthetic markets (not for cryptography). */
export class Prng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Approximately standard normal (Irwin-Hall of four uniforms, rescaled): cheap and bounded. */
  normal(): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * 1.7320508075688772;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    const x = xs[Math.floor(this.next() * xs.length)];
    if (x === undefined) throw new Error('Prng.pick on an empty list');
    return x;
  }
}
