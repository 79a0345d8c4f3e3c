/**
 * {@linkcode Reader}: reads raw JSON values, collecting every problem
 * (each naming its field) instead of stopping at the first.
 *
 * @module
 */

/** A JSON object as parsed. */
export type Raw = Record<string, unknown>;

/** Whether a value is a JSON object (not null, not a list). */
export function isRecord(v: unknown): v is Raw {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Collects problems while reading raw JSON. */
export class Reader {
  /** The problems found so far, each `<field>: <message>`. */
  readonly problems: string[] = [];

  add(where: string, message: string): void {
    this.problems.push(`${where}: ${message}`);
  }

  keys(obj: Raw, where: string, allowed: readonly string[]): void {
    for (const k of Object.keys(obj)) {
      if (!allowed.includes(k)) {
        this.add(
          where,
          `unknown field "${k}" (expected one of ${allowed.join(", ")})`,
        );
      }
    }
  }

  object(v: unknown, where: string): Raw | undefined {
    if (v === undefined) return undefined;
    if (!isRecord(v)) {
      this.add(where, "must be an object");
      return undefined;
    }
    return v;
  }

  string(v: unknown, where: string, nonEmpty = true): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string" || (nonEmpty && v === "")) {
      this.add(where, `must be a ${nonEmpty ? "non-empty " : ""}string`);
      return undefined;
    }
    return v;
  }

  bool(v: unknown, where: string): boolean | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") {
      this.add(where, "must be true or false");
      return undefined;
    }
    return v;
  }

  integer(v: unknown, where: string, min = 0): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) {
      this.add(where, `must be an integer ≥ ${min}`);
      return undefined;
    }
    return v;
  }

  rate(v: unknown, where: string): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      this.add(where, "must be a number ≥ 0 (USD per million tokens)");
      return undefined;
    }
    return v;
  }

  oneOf<T extends string>(
    v: unknown,
    where: string,
    allowed: readonly T[],
  ): T | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string" || !allowed.includes(v as T)) {
      this.add(
        where,
        `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}, got ${
          JSON.stringify(v)
        }`,
      );
      return undefined;
    }
    return v as T;
  }
}
