/**
 * The memory provider's behaviour, independent of the wire: configuration,
 * the record operations, recall ranking and self-truncation, the
 * `remember`/`forget`/`search` tools and the two observed hooks. `main.ts`
 * maps it onto `MemoryService`, `ToolService` and `HookSubscriberService`.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { expandPath } from "../../contract/permissions.ts";

/** A variable the plugin may read, else `undefined` (never throws). */
function envOf(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
import {
  MemoryStore,
  SCOPE_NAMES,
  type ScopeName,
  type StatusName,
  type StoredProvenance,
  type StoredRecord,
  StoreUnavailableError,
  TYPE_NAMES,
  type TypeName,
} from "./_store.ts";
import {
  lexicalScores,
  NEAR_MATCH_THRESHOLD,
  nearMatch,
  parseLinks,
  type ScoredDoc,
  scoredDoc,
  slugify,
  words,
} from "./_text.ts";

/** The failure categories of `memory.v1.MemoryErrorCategory`, lower snake. */
export type FailureCategory =
  | "not_found"
  | "invalid_type"
  | "ratification_unsupported"
  | "budget_exceeded"
  | "source_unavailable"
  | "unknown"
  | "invalid_scope"
  | "invalid_request";

/**
 * A classified failure. `invalid_request` is a malformed request (a missing
 * `model_target`, empty content): `INVALID_ARGUMENT` with no memory
 * category, since MemoryErrorCategory has none for it.
 */
export class MemoryFailure extends Error {
  /**
   * Creates the failure.
   *
   * @param category The category.
   * @param message What went wrong, naming the field or id.
   * @param retryable Whether trying again may succeed.
   */
  constructor(
    readonly category: FailureCategory,
    message: string,
    readonly retryable = category === "source_unavailable",
  ) {
    super(message);
    this.name = "MemoryFailure";
  }
}

/** The provider's configuration, decoded. */
export interface MemoryConfig {
  /** The SQLite file (absolute). */
  path: string;
  /** New records are PENDING until approved. */
  reviewWrites: boolean;
  /** Record the final answer of a completed session at `session-end`. */
  sessionSummaries: boolean;
  /** Most records one Recall returns. */
  maxRecords: number;
}

/**
 * The default database path: the user's data directory, so memories
 * outlive a project checkout (`$XDG_DATA_HOME`, else `~/.local/share`).
 */
export const DEFAULT_PATH = "$XDG_DATA_HOME/agent/memory.sqlite";
/** The default `default_token_budget`. */
export const DEFAULT_TOKEN_BUDGET = 2000;
const CONFIG_KEYS = [
  "path",
  "review_writes",
  "session_summaries",
  "max_records",
  "token_budget",
];

/**
 * Decodes the provider block.
 *
 * @param config The decoded `agent.hcl` block.
 * @param cwd The directory a relative `path` resolves against.
 * @returns The configuration.
 * @throws {MemoryFailure} `invalid_request`, naming the attribute.
 */
export function parseConfig(
  config: Record<string, unknown>,
  cwd: string,
): MemoryConfig {
  const bad = (m: string): never => {
    throw new MemoryFailure("invalid_request", m);
  };
  for (const k of Object.keys(config)) {
    if (!CONFIG_KEYS.includes(k)) {
      bad(
        `config attribute "${k}" is not supported by memory (it takes ${
          CONFIG_KEYS.join(", ")
        })`,
      );
    }
  }
  const opt = <T>(
    k: string,
    type: "string" | "number" | "boolean",
    dflt: T,
  ): T => {
    const v = config[k];
    if (v === undefined || v === null) return dflt;
    const actual = typeof v;
    if (actual !== type) {
      bad(
        `config attribute "${k}" must be a ${type}, not ${JSON.stringify(v)}`,
      );
    }
    return v as T;
  };
  const written: string = opt("path", "string", DEFAULT_PATH);
  if (written === "") bad(`config attribute "path" must not be empty`);
  const path = expandPath(written, {
    HOME: envOf("HOME"),
    XDG_DATA_HOME: envOf("XDG_DATA_HOME"),
    XDG_STATE_HOME: envOf("XDG_STATE_HOME"),
    XDG_CONFIG_HOME: envOf("XDG_CONFIG_HOME"),
    XDG_CACHE_HOME: envOf("XDG_CACHE_HOME"),
  }) ?? bad(
    `config attribute "path" is "${written}", but neither the variable it starts with nor HOME is available to the plugin (grant them with allow_env)`,
  );
  const maxRecords = opt("max_records", "number", 20);
  if (!Number.isInteger(maxRecords) || maxRecords < 1) {
    bad(
      `config attribute "max_records" must be a positive integer, not ${maxRecords}`,
    );
  }
  const budget = opt("token_budget", "number", DEFAULT_TOKEN_BUDGET);
  if (!Number.isInteger(budget) || budget < 1) {
    bad(
      `config attribute "token_budget" must be a positive integer, not ${budget}`,
    );
  }
  return {
    path: isAbsolute(path) ? path : resolve(cwd, path),
    reviewWrites: opt("review_writes", "boolean", false),
    sessionSummaries: opt("session_summaries", "boolean", false),
    maxRecords,
  };
}

/** Counts tokens through the kernel's CountTokens callback. */
export type TokenCounter = (texts: string[]) => Promise<number>;

/** Where a write comes from (provenance). */
export type Origin = StoredProvenance;

/** A record as Recall, List and search return it. */
export interface Ranked {
  /** The record. */
  record: StoredRecord;
  /** Relevance in [0, 1]. */
  score: number;
}

/** A Recall request, decoded. */
export interface RecallInput {
  /** The session recalling. */
  sessionId: string;
  /** Tokens the answer may use. */
  tokenBudget: number;
  /** Files the turn touched (query words). */
  filesTouched: readonly string[];
  /** Only these types (empty: all). */
  types: readonly TypeName[];
  /** Only these scopes (empty: all). */
  scopes: readonly ScopeName[];
  /** Include PENDING records. */
  includePending: boolean;
}

/** What `remember` did. */
export type RememberOutcome =
  | { status: "created" | "updated"; record: StoredRecord }
  | { status: "near_duplicate"; candidates: Ranked[] };

const DAY_MS = 86_400_000;
const HALF_LIFE_DAYS: Record<TypeName, number> = {
  user: 180,
  feedback: 180,
  reference: 180,
  project: 14,
};
const TYPE_WEIGHT: Record<TypeName, number> = {
  user: 1,
  feedback: 1,
  reference: 0.6,
  project: 0.6,
};
/** Longest remembered response text kept per session, in characters. */
const MAX_RECENT_TEXT = 4000;
/** Sessions whose last response text is kept. */
const MAX_RECENT_SESSIONS = 64;

/**
 * Relevance of records to query words, in [0, 1]: half lexical match
 * (title and content against the query, see `lexicalScores`), three
 * tenths the type's weight (user and feedback 1, project and reference
 * 0.6), one fifth recency (exponential decay of the last update, half-life
 * 14 days for project records, 180 for the others).
 *
 * @param records The candidates.
 * @param query The query words.
 * @param now The current time in ms.
 * @param docOf The word sets of a record (a cache may answer).
 * @returns Ranked records, best first (ties: most recently updated).
 */
export function rank(
  records: readonly StoredRecord[],
  query: readonly string[],
  now: number,
  docOf: (r: StoredRecord) => ScoredDoc = (r) =>
    scoredDoc(r.title, r.content.join("\n")),
): Ranked[] {
  const lex = lexicalScores(query, records.map(docOf));
  return records.map((record, i) => {
    const ageDays = Math.max(0, now - record.updatedAt) / DAY_MS;
    const recency = Math.pow(0.5, ageDays / HALF_LIFE_DAYS[record.type]);
    const score = 0.5 * lex[i]! + 0.3 * TYPE_WEIGHT[record.type] +
      0.2 * recency;
    return { record, score: Math.min(1, Math.max(0, score)) };
  }).sort((a, b) =>
    b.score - a.score || b.record.updatedAt - a.record.updatedAt ||
    a.record.id.localeCompare(b.record.id)
  );
}

/** Whether a session may see a record (session scope: only its own). */
function visible(r: StoredRecord, sessionId: string): boolean {
  return r.scope !== "session" ||
    (sessionId !== "" && r.provenance.sourceSessionId === sessionId);
}

function texts(content: readonly string[], what: string): string[] {
  const out = content.filter((t) => t.trim() !== "");
  if (out.length === 0) {
    throw new MemoryFailure(
      "invalid_request",
      `${what}: content must hold at least one non-empty text block`,
    );
  }
  return out;
}

/** The memory provider. */
export class Memory {
  #store?: MemoryStore;
  #config?: MemoryConfig;
  readonly #count: TokenCounter;
  readonly #now: () => number;
  readonly #recent = new Map<string, string>();
  readonly #docs = new Map<string, { at: number; doc: ScoredDoc }>();

  /** The word sets of a record, cached per id and update time. */
  #docOf = (r: StoredRecord): ScoredDoc => {
    const hit = this.#docs.get(r.id);
    if (hit && hit.at === r.updatedAt) return hit.doc;
    const doc = scoredDoc(r.title, r.content.join("\n"));
    if (this.#docs.size >= 10_000) this.#docs.clear();
    this.#docs.set(r.id, { at: r.updatedAt, doc });
    return doc;
  };

  /**
   * Creates the provider (unconfigured).
   *
   * @param count Token counting through the kernel.
   * @param now The clock.
   */
  constructor(count: TokenCounter, now: () => number = Date.now) {
    this.#count = count;
    this.#now = now;
  }

  /** The configuration, once configured. */
  get config(): MemoryConfig | undefined {
    return this.#config;
  }

  /**
   * Applies a configuration: opens (creating) the database file.
   *
   * @param config The decoded provider block.
   * @param cwd Where a relative `path` resolves.
   * @throws {MemoryFailure} `invalid_request` for a bad attribute,
   *   `source_unavailable` when the file cannot be opened.
   */
  configure(config: Record<string, unknown>, cwd: string): void {
    const parsed = parseConfig(config, cwd);
    let store: MemoryStore;
    try {
      store = MemoryStore.open(parsed.path);
    } catch (err) {
      throw new MemoryFailure(
        "source_unavailable",
        `${
          (err as Error).message
        } (the provider block must grant the file's directory with allow_read and allow_write, and the plugin must declare it)`,
      );
    }
    this.#store?.close();
    this.#store = store;
    this.#config = parsed;
  }

  /** Closes the database. */
  close(): void {
    this.#store?.close();
    this.#store = undefined;
  }

  #db(): MemoryStore {
    if (!this.#store) {
      throw new MemoryFailure(
        "source_unavailable",
        "The memory provider is not configured: Configure must run first",
        false,
      );
    }
    return this.#store;
  }

  #guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof MemoryFailure) throw err;
      throw new MemoryFailure(
        "source_unavailable",
        `The memory database "${this.#config?.path}" failed: ${
          (err as Error).message
        }`,
      );
    }
  }

  async #tokens(content: string[]): Promise<number> {
    try {
      return await this.#count(content);
    } catch (err) {
      throw new MemoryFailure(
        "source_unavailable",
        `The kernel's CountTokens failed: ${(err as Error).message}`,
      );
    }
  }

  /**
   * Creates a record (`Record`).
   *
   * @param input Type, scope, suggested id, title and text blocks.
   * @param origin Provenance (written once).
   * @returns The stored record (final slug, status).
   */
  async record(
    input: {
      type: TypeName;
      scope: ScopeName;
      id?: string;
      title: string;
      content: string[];
    },
    origin: Origin,
  ): Promise<StoredRecord> {
    const db = this.#db();
    const content = texts(input.content, "Record");
    const title = input.title.trim();
    if (!title) {
      throw new MemoryFailure("invalid_request", "Record: title is required");
    }
    const tokens = await this.#tokens(content);
    const base = slugify(input.id?.trim() || title);
    const now = this.#now();
    const status: StatusName = this.#config!.reviewWrites
      ? "pending"
      : "canonical";
    return this.#guard(() =>
      db.insert(base, {
        type: input.type,
        scope: input.scope,
        title,
        content,
        tokens,
        status,
        links: parseLinks([title, ...content].join("\n")),
        createdAt: now,
        updatedAt: now,
        provenance: { ...origin },
      })
    );
  }

  /**
   * Replaces a record's title and/or content (`UpdateRecord`); type,
   * scope, status and provenance never change.
   *
   * @param id The slug.
   * @param change A new title, new content (wholesale), or both.
   * @returns The record after the change.
   */
  async update(
    id: string,
    change: { title?: string; content: string[] },
  ): Promise<StoredRecord> {
    const db = this.#db();
    const old = this.get(id);
    if (change.title === undefined && change.content.length === 0) {
      throw new MemoryFailure(
        "invalid_request",
        `UpdateRecord "${id}": nothing to change (give a title, content or both)`,
      );
    }
    const title = change.title?.trim() ?? old.title;
    if (!title) {
      throw new MemoryFailure(
        "invalid_request",
        `UpdateRecord "${id}": title must not be empty`,
      );
    }
    const content = change.content.length
      ? texts(change.content, `UpdateRecord "${id}"`)
      : old.content;
    const tokens = change.content.length
      ? await this.#tokens(content)
      : old.tokens;
    const updated = this.#guard(() =>
      db.update(id, {
        title,
        content,
        tokens,
        links: parseLinks([title, ...content].join("\n")),
        updatedAt: Math.max(this.#now(), old.updatedAt),
      })
    );
    if (!updated) throw notFound(id);
    return updated;
  }

  /**
   * One record (`GetRecord`).
   *
   * @param id The slug.
   * @returns The record.
   * @throws {MemoryFailure} `not_found`.
   */
  get(id: string): StoredRecord {
    const db = this.#db();
    const r = this.#guard(() => db.get(id));
    if (!r) throw notFound(id);
    return r;
  }

  /**
   * Deletes a record (`DeleteRecord`).
   *
   * @param id The slug.
   * @returns The record as it was.
   * @throws {MemoryFailure} `not_found`.
   */
  delete(id: string): StoredRecord {
    const db = this.#db();
    const r = this.get(id);
    if (!this.#guard(() => db.delete(id))) throw notFound(id);
    return r;
  }

  /**
   * Approves a pending record (`ApproveRecord`).
   *
   * @param id The slug.
   * @returns The record, now canonical.
   */
  approve(id: string): StoredRecord {
    this.#ratifying();
    const db = this.#db();
    const r = this.get(id);
    if (r.status !== "pending") {
      throw new MemoryFailure(
        "invalid_request",
        `ApproveRecord "${id}": the record is already canonical`,
      );
    }
    const approved = this.#guard(() =>
      db.setStatus(id, "canonical", this.#now())
    );
    if (!approved) throw notFound(id); // deleted meanwhile
    return approved;
  }

  /**
   * Rejects (deletes) a pending record (`RejectRecord`).
   *
   * @param id The slug.
   */
  reject(id: string): void {
    this.#ratifying();
    const r = this.get(id);
    if (r.status !== "pending") {
      throw new MemoryFailure(
        "invalid_request",
        `RejectRecord "${id}": the record is canonical, not pending (delete it instead)`,
      );
    }
    this.delete(id);
  }

  #ratifying(): void {
    this.#db();
    if (!this.#config!.reviewWrites) {
      throw new MemoryFailure(
        "ratification_unsupported",
        "This memory provider is configured without review (review_writes = false): records are canonical when written",
      );
    }
  }

  /**
   * Records matching filters, most recently updated first (`ListRecords`).
   *
   * @param filter Types, scopes, statuses (each empty = all).
   * @returns The records.
   */
  list(filter: {
    types: readonly TypeName[];
    scopes: readonly ScopeName[];
    statuses: readonly StatusName[];
  }): StoredRecord[] {
    const db = this.#db();
    return this.#guard(() => db.list(filter));
  }

  /**
   * Notes the latest model response of a session (`post-model-response`):
   * its words join the next Recall's query, and it is what
   * `session_summaries` records at the session's end.
   *
   * @param sessionId The session ("" when the kernel did not say).
   * @param text The response's text.
   */
  observeResponse(sessionId: string, text: string): void {
    if (!text.trim()) return;
    this.#recent.delete(sessionId);
    this.#recent.set(sessionId, text.slice(0, MAX_RECENT_TEXT));
    while (this.#recent.size > MAX_RECENT_SESSIONS) {
      this.#recent.delete(this.#recent.keys().next().value!);
    }
  }

  #recentText(sessionId: string): string | undefined {
    return this.#recent.get(sessionId) ?? this.#recent.get("");
  }

  /**
   * The end of a session (`session-end`): with `session_summaries`, a
   * completed session's last response is recorded as a `project` record
   * (scope project) titled `Outcome of session <id>`; otherwise nothing
   * is written. The session's noted response is forgotten either way.
   *
   * @param sessionId The session.
   * @param completed Whether it ended COMPLETED.
   * @returns The record written, if any.
   */
  async sessionEnded(
    sessionId: string,
    completed: boolean,
  ): Promise<StoredRecord | undefined> {
    const text = this.#recentText(sessionId);
    this.#recent.delete(sessionId);
    if (!this.#config?.sessionSummaries || !completed || !text) {
      return undefined;
    }
    return await this.record({
      type: "project",
      scope: "project",
      id: `session-${sessionId.toLowerCase()}`,
      title: `Outcome of session ${sessionId}`,
      content: [text.slice(0, 2000)],
    }, { sourceSessionId: sessionId, recordedBy: "hook:session-end" });
  }

  /**
   * Recall: visible, matching records ranked by relevance to the turn
   * (words of `files_touched` and of the session's latest response), kept
   * greedily in rank order while they fit `token_budget`, at most
   * `max_records`. PENDING records only with `include_pending`.
   *
   * @param input The request.
   * @returns The records with their scores, best first.
   * @throws {MemoryFailure} `budget_exceeded` when records match but not
   *   one fits the budget.
   */
  recall(input: RecallInput): Ranked[] {
    const db = this.#db();
    const candidates = this.#guard(() =>
      db.list({
        types: input.types,
        scopes: input.scopes,
        statuses: input.includePending ? [] : ["canonical"],
      })
    ).filter((r) => visible(r, input.sessionId));
    const query = [
      ...input.filesTouched.flatMap(words),
      ...words(this.#recentText(input.sessionId) ?? ""),
    ];
    const ranked = rank(candidates, query, this.#now(), this.#docOf);
    const out: Ranked[] = [];
    let left = input.tokenBudget;
    for (const r of ranked) {
      if (out.length >= this.#config!.maxRecords) break;
      if (r.record.tokens <= left) {
        out.push(r);
        left -= r.record.tokens;
      }
    }
    if (out.length === 0 && ranked.length > 0 && input.tokenBudget > 0) {
      const smallest = Math.min(...ranked.map((r) => r.record.tokens));
      throw new MemoryFailure(
        "budget_exceeded",
        `Recall: ${ranked.length} records match, but the smallest needs ${smallest} tokens and the budget is ${input.tokenBudget}`,
      );
    }
    return out;
  }

  /**
   * The `search` tool: records ranked against a query; only records that
   * share a word with it, best first.
   *
   * @param input Query, filters, limit, the calling session.
   * @returns The matches.
   */
  search(input: {
    query: string;
    types: readonly TypeName[];
    scopes: readonly ScopeName[];
    limit: number;
    sessionId: string;
  }): Ranked[] {
    const db = this.#db();
    const q = words(input.query);
    if (q.length === 0) {
      throw new MemoryFailure(
        "invalid_request",
        `search: the query ${
          JSON.stringify(input.query)
        } has no searchable word (letters or digits, two or more)`,
      );
    }
    const candidates = this.#guard(() =>
      db.list({ types: input.types, scopes: input.scopes, statuses: [] })
    ).filter((r) => {
      if (!visible(r, input.sessionId)) return false;
      const d = this.#docOf(r);
      return q.some((w) => d.title.has(w) || d.body.has(w));
    });
    return rank(candidates, q, this.#now(), this.#docOf).slice(
      0,
      input.limit,
    );
  }

  /**
   * The `remember` tool: creates a record unless a visible record is a
   * near duplicate (similarity ≥ {@linkcode NEAR_MATCH_THRESHOLD}) and
   * `force` is not set; with `updateId` it replaces that record's title
   * and content instead.
   *
   * @param input The tool's arguments.
   * @param origin Provenance.
   * @returns What happened.
   */
  async remember(
    input: {
      title: string;
      content: string;
      type: TypeName;
      scope: ScopeName;
      id?: string;
      updateId?: string;
      force: boolean;
    },
    origin: Origin,
  ): Promise<RememberOutcome> {
    if (input.updateId !== undefined) {
      const old = this.get(input.updateId);
      if (old.type !== input.type || old.scope !== input.scope) {
        throw new MemoryFailure(
          old.type !== input.type ? "invalid_type" : "invalid_scope",
          `remember: record "${old.id}" is ${old.type}/${old.scope}; type and scope never change (give type "${old.type}" and scope "${old.scope}", or forget it and remember anew)`,
        );
      }
      const record = await this.update(input.updateId, {
        title: input.title,
        content: [input.content],
      });
      return { status: "updated", record };
    }
    if (!input.force) {
      const db = this.#db();
      const all = this.#guard(() =>
        db.list({ types: [], scopes: [], statuses: [] })
      ).filter((r) => visible(r, origin.sourceSessionId));
      const candidates = all.map((record) => ({
        record,
        score: nearMatch(
          { title: input.title, content: input.content },
          { title: record.title, content: record.content.join("\n") },
        ),
      })).filter((c) => c.score >= NEAR_MATCH_THRESHOLD)
        .sort((a, b) => b.score - a.score).slice(0, 5);
      if (candidates.length) return { status: "near_duplicate", candidates };
    }
    const record = await this.record({
      type: input.type,
      scope: input.scope,
      ...(input.id !== undefined ? { id: input.id } : {}),
      title: input.title,
      content: [input.content],
    }, origin);
    return { status: "created", record };
  }
}

function notFound(id: string): MemoryFailure {
  return new MemoryFailure(
    "not_found",
    `There is no memory record ${JSON.stringify(id)}`,
  );
}

/**
 * A type name from a tool argument.
 *
 * @param v The argument.
 * @param dflt The default when absent.
 * @returns The type.
 */
export function typeArg(v: unknown, dflt?: TypeName): TypeName {
  if ((v === undefined || v === null) && dflt) return dflt;
  if (!TYPE_NAMES.includes(v as TypeName)) {
    throw new MemoryFailure(
      "invalid_type",
      `"type" must be one of ${TYPE_NAMES.join(", ")}, not ${
        JSON.stringify(v)
      }`,
    );
  }
  return v as TypeName;
}

/**
 * A scope name from a tool argument.
 *
 * @param v The argument.
 * @param dflt The default when absent.
 * @returns The scope.
 */
export function scopeArg(v: unknown, dflt?: ScopeName): ScopeName {
  if ((v === undefined || v === null) && dflt) return dflt;
  if (!SCOPE_NAMES.includes(v as ScopeName)) {
    throw new MemoryFailure(
      "invalid_scope",
      `"scope" must be one of ${SCOPE_NAMES.join(", ")}, not ${
        JSON.stringify(v)
      }`,
    );
  }
  return v as ScopeName;
}

export { StoreUnavailableError };
