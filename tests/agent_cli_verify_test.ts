/**
 * `agent sessions verify` against the two attacks of issue 21 defect 8
 * (a deleted tail with `sqlite_sequence` fixed; an edited event with the
 * chain recomputed by the public unkeyed function), a missing head, and a
 * legacy (unkeyed) session, through the CLI with the kernel's default
 * locations: sessions and heads under `$XDG_STATE_HOME/agent`, the key
 * under `$HOME/.local/share/agent`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type AgentIo, run } from "../main.ts";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import { chainGenesis, eventHash } from "../kernel/state/hash_chain.ts";
import { hashedEvents } from "../kernel/state/_sqlite_schema.ts";
import { toolCall } from "./contract/session_store.ts";

interface Home extends AsyncDisposable {
  env: Record<string, string>;
  store: SqliteSessionStore;
}

async function home(): Promise<Home> {
  const root = await Deno.makeTempDir({ prefix: "ph-verify-" });
  const store = new SqliteSessionStore({
    dir: `${root}/state/agent/sessions`,
    headsDir: `${root}/state/agent/heads`,
    keyPath: `${root}/.local/share/agent/installation.key`,
  });
  return {
    env: { HOME: root, XDG_STATE_HOME: `${root}/state`, NO_COLOR: "1" },
    store,
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

async function verify(h: Home, id: string) {
  let out = "";
  let err = "";
  const io: AgentIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: h.env,
    cwd: h.env.HOME!,
  };
  const code = await run(["sessions", "verify", id], io);
  return { code, out, err };
}

async function session(h: Home, n: number): Promise<string> {
  const s = await h.store.create({ profile: "p" });
  for (let i = 1; i <= n; i++) await s.emit(toolCall(i));
  await s.close();
  return s.sessionId;
}

Deno.test("agent sessions verify: defect 8, a deleted tail with sqlite_sequence fixed is reported (exit 1)", async () => {
  await using h = await home();
  const id = await session(h, 5);
  const ok = await verify(h, id);
  assert.equal(ok.code, 0, ok.err);
  assert.match(
    ok.out,
    /keyed chain valid; head matches: no event was deleted or edited by anyone without the installation key/,
  );
  assert.match(ok.out, /cannot rule out changes by someone holding/);
  const db = new DatabaseSync(h.store.pathOf(id));
  db.exec("DELETE FROM events WHERE sequence > 3");
  db.exec("UPDATE sqlite_sequence SET seq = 3 WHERE name = 'events'");
  db.close();
  const r = await verify(h, id);
  assert.equal(r.code, 1);
  assert.match(
    r.out,
    /^broken: the head records 5 events, but the log holds 3: events 4 to 5 were deleted \(keyed chain/,
  );
});

Deno.test("agent sessions verify: defect 8, an edit with the chain recomputed by the public function is reported (exit 1)", async () => {
  await using h = await home();
  const id = await session(h, 4);
  const db = new DatabaseSync(h.store.pathOf(id));
  db.exec("UPDATE events SET payload = X'00' WHERE sequence = 3");
  let prev = chainGenesis(id);
  const update = db.prepare("UPDATE events SET hash = ? WHERE sequence = ?");
  for (const e of [...hashedEvents(db, false)]) {
    prev = eventHash(prev, e);
    update.run(prev, e.sequence);
  }
  db.close();
  const r = await verify(h, id);
  assert.equal(r.code, 1);
  assert.match(r.out, /^broken: event 1 does not match its stored hash/);
});

Deno.test("agent sessions verify: a missing head file is reported (exit 1)", async () => {
  await using h = await home();
  const id = await session(h, 2);
  await Deno.remove(`${h.env.XDG_STATE_HOME}/agent/heads/${id}.head`);
  const r = await verify(h, id);
  assert.equal(r.code, 1);
  assert.match(r.out, /chain head kept outside the session file is missing/);
});

Deno.test("agent sessions verify: a legacy (unkeyed) session verifies as legacy, never as keyed", async () => {
  await using h = await home();
  const id = await session(h, 2);
  // Make it what a pre-keying kernel wrote: the public chain, no head.
  const db = new DatabaseSync(h.store.pathOf(id));
  db.exec("UPDATE chain SET scheme = 'sha256', key_id = NULL");
  let prev = chainGenesis(id);
  const update = db.prepare("UPDATE events SET hash = ? WHERE sequence = ?");
  for (const e of [...hashedEvents(db, false)]) {
    prev = eventHash(prev, e);
    update.run(prev, e.sequence);
  }
  db.close();
  await Deno.remove(`${h.env.XDG_STATE_HOME}/agent/heads/${id}.head`);
  const r = await verify(h, id);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /unkeyed \(legacy\): integrity only against accidental damage/,
  );
  assert.doesNotMatch(r.out, /keyed chain valid/);
  assert.match(r.out, /no head outside the file/);
});
