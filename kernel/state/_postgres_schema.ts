/**
 * The PostgreSQL backend's schema: one schema (default `agent`) holding
 * every session of a team, its revision in `schema_version`, and the
 * migrations from each revision to the next.
 *
 * @module
 */
import type { Sql } from "postgres";
import { SchemaTooNewError } from "./errors.ts";

/** The newest schema revision this kernel reads and writes. */
export const PG_SCHEMA_VERSION = 1;

/** A schema name this backend accepts (a plain lower-case identifier). */
export const PG_SCHEMA_NAME_REGEXP: RegExp = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The steps: `MIGRATIONS[i]` brings revision `i` to `i + 1`; they run in
 * the transaction that stamps the new revision.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     session_id text PRIMARY KEY,
     parent_session_id text,
     profile text NOT NULL,
     status text NOT NULL,
     depth integer NOT NULL,
     started_at text NOT NULL,
     ended_at text,
     chain_scheme text NOT NULL,
     key_id text,
     last_sequence bigint NOT NULL DEFAULT 0,
     head text,
     cost_usd double precision NOT NULL DEFAULT 0,
     cost_rows bigint NOT NULL DEFAULT 0,
     lease_token text,
     lease_owner jsonb,
     lease_expires_at timestamptz
   );
   CREATE INDEX sessions_parent ON sessions (parent_session_id);
   CREATE TABLE events (
     session_id text NOT NULL REFERENCES sessions ON DELETE CASCADE,
     sequence bigint NOT NULL,
     id text NOT NULL,
     timestamp text NOT NULL,
     kind text NOT NULL,
     producer_category text NOT NULL,
     producer_name text NOT NULL,
     producer_version text NOT NULL,
     schema_version text NOT NULL,
     payload bytea NOT NULL,
     hash bytea NOT NULL,
     PRIMARY KEY (session_id, sequence),
     CONSTRAINT events_id_unique UNIQUE (session_id, id)
   );
   CREATE TABLE cost_ledger (
     row_id bigserial PRIMARY KEY,
     session_id text NOT NULL,
     event_sequence bigint NOT NULL,
     provider_name text NOT NULL,
     model_id text NOT NULL,
     input_tokens bigint NOT NULL,
     output_tokens bigint NOT NULL,
     cache_write_tokens bigint NOT NULL,
     cache_read_tokens bigint NOT NULL,
     cost_usd double precision NOT NULL,
     FOREIGN KEY (session_id, event_sequence) REFERENCES events
       ON DELETE CASCADE
   );
   CREATE INDEX cost_ledger_session ON cost_ledger (session_id, row_id);
   CREATE TABLE plan_items (
     row_id bigserial PRIMARY KEY,
     session_id text NOT NULL,
     event_sequence bigint NOT NULL,
     turn_id text NOT NULL,
     tool_call_id text NOT NULL,
     provider_name text NOT NULL,
     tool_name text NOT NULL,
     decision text NOT NULL,
     decided_by text NOT NULL,
     FOREIGN KEY (session_id, event_sequence) REFERENCES events
       ON DELETE CASCADE
   );
   CREATE INDEX plan_items_session ON plan_items (session_id, row_id);
   CREATE TABLE producers (
     session_id text NOT NULL REFERENCES sessions ON DELETE CASCADE,
     category text NOT NULL,
     name text NOT NULL,
     version text NOT NULL,
     first_seen_sequence bigint NOT NULL,
     PRIMARY KEY (session_id, category, name, version)
   );
   CREATE TABLE bus_payloads (
     id bigserial PRIMARY KEY,
     created_at timestamptz NOT NULL DEFAULT now(),
     body bytea NOT NULL
   );`,
];

async function readVersion(sql: Sql, schema: string): Promise<number> {
  const [r] = await sql<{ t: string | null }[]>`
    SELECT to_regclass(${schema + ".schema_version"})::text AS t`;
  if (!r.t) return 0;
  const rows = await sql<{ version: number }[]>`
    SELECT version FROM ${sql(schema)}.schema_version`;
  return rows.length === 0 ? 0 : Number(rows[0].version);
}

/**
 * Checks the schema's revision before anything else, refusing one newer
 * than {@linkcode PG_SCHEMA_VERSION}, and migrates an older one step by
 * step, all steps in one transaction under an advisory lock (so kernels
 * that start together migrate once).
 *
 * @throws {SchemaTooNewError} When the schema is newer than this kernel.
 */
export async function ensurePgSchema(
  sql: Sql,
  schema: string,
  where: string,
): Promise<void> {
  const tooNew = (found: number) =>
    new SchemaTooNewError(where, found, PG_SCHEMA_VERSION);
  const found = await readVersion(sql, schema);
  if (found > PG_SCHEMA_VERSION) throw tooNew(found);
  if (found === PG_SCHEMA_VERSION) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${"ph-agent:" + schema}))`;
    await tx`CREATE SCHEMA IF NOT EXISTS ${tx(schema)}`;
    await tx`CREATE TABLE IF NOT EXISTS ${tx(schema)}.schema_version
      (version integer NOT NULL)`;
    let version = await readVersion(tx as unknown as Sql, schema);
    if (version > PG_SCHEMA_VERSION) throw tooNew(version);
    await tx.unsafe(`SET LOCAL search_path TO "${schema}"`);
    while (version < PG_SCHEMA_VERSION) {
      await tx.unsafe(MIGRATIONS[version]);
      version++;
    }
    await tx`DELETE FROM ${tx(schema)}.schema_version`;
    await tx`INSERT INTO ${tx(schema)}.schema_version (version)
      VALUES (${version})`;
  });
}
