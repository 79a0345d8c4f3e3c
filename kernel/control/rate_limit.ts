/**
 * The control plane's rate limits (seed 004's limit column):
 * {@linkcode ControlRateLimiter} keeps one sliding window per channel and
 * key — the source for `60/min/source`, the hook for `30/min/hook`, one
 * counter for `30/min global` — and a once-per-turn flag. Over the limit a
 * message is refused (and counted), never queued.
 *
 * @module
 */
import { type ChannelName, CHANNELS } from "./channels.ts";

/** Sliding-window and once-per-turn counters of one session. */
export class ControlRateLimiter {
  readonly #now: () => number;
  readonly #windows = new Map<string, number[]>();
  readonly #thisTurn = new Set<ChannelName>();
  readonly #dropped = new Map<ChannelName, number>();

  /**
   * Creates a limiter.
   *
   * @param now The clock (epoch ms).
   */
  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * Takes one slot of a channel's limit for a key.
   *
   * @param channel The channel.
   * @param key The source or hook (ignored by global and unlimited channels).
   * @returns True when the message may go; false when it is over the limit
   * (and then counted as dropped).
   */
  take(channel: ChannelName, key: string): boolean {
    const limit = CHANNELS.get(channel)!.limit;
    if (limit.kind === "none") return true;
    if (limit.kind === "once-per-turn") {
      if (this.#thisTurn.has(channel)) return this.#drop(channel);
      this.#thisTurn.add(channel);
      return true;
    }
    const id = limit.per === "global" ? channel : `${channel}\u0000${key}`;
    const now = this.#now();
    let stamps = this.#windows.get(id);
    if (!stamps) this.#windows.set(id, stamps = []);
    const since = now - limit.windowMs;
    let old = 0;
    while (old < stamps.length && stamps[old]! <= since) old++;
    if (old) stamps.splice(0, old);
    if (stamps.length >= limit.max) return this.#drop(channel);
    stamps.push(now);
    return true;
  }

  /** Starts a new turn: once-per-turn channels may deliver again. */
  newTurn(): void {
    this.#thisTurn.clear();
  }

  /**
   * Messages refused so far, by channel.
   *
   * @returns The counts.
   */
  dropped(): ReadonlyMap<ChannelName, number> {
    return this.#dropped;
  }

  #drop(channel: ChannelName): false {
    this.#dropped.set(channel, (this.#dropped.get(channel) ?? 0) + 1);
    return false;
  }
}
