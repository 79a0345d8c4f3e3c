import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { toolCall } from "../../tests/contract/session_store.ts";
import { SqliteSessionStore } from "./sqlite_session_store.ts";
import { chainGenesis, eventHash, type HashedEvent } from "./hash_chain.ts";
import { hashedEvents } from "./_sqlite_schema.ts";
import { loadInstallationKey } from "./installation_key.ts";
import { InstallationKeyError } from "./errors.ts";

async function withStore(
  fn: (store: SqliteSessionStore, root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "ph-keyed-" });
  const store = new SqliteSessionStore({
    dir: `${root}/sessions`,
    headsDir: `${root}/heads`,
    keyPath: `${root}/data/agent/installation.key`,
  });
  try {
    await fn(store, root);
  } finally {
    await store.close();
    await Deno.remove(root, { recursive: true });
  }
}

async function sessionWith(store: SqliteSessionStore, n: number) {
  const s = await store.create({ profile: "p" });
  for (let i = 1; i <= n; i++) await s.emit(toolCall(i));
  await s.close();
  return s.sessionId;
}

Deno.test("defect 8: deleting the last events and fixing sqlite_sequence fails verify (head kept outside the file)", async () => {
  await withStore(async (store) => {
    const id = await sessionWith(store, 6);
    assert.equal((await store.verify(id)).ok, true);
    const db = new DatabaseSync(store.pathOf(id));
    db.exec("PRAGMA foreign_keys = OFF");
    db.exec("DELETE FROM events WHERE sequence > 4");
    db.exec("UPDATE sqlite_sequence SET seq = 4 WHERE name = 'events'");
    db.close();
    const r = await store.verify(id);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.reason, "head_mismatch");
    assert.equal(r.chain, "keyed");
    assert.match(r.message, /head records 6 events, but the log holds 4/);
    // Appending would cover the truncation with a fresh head: refused.
    const s = await store.open(id);
    await assert.rejects(s.emit(toolCall(9)), /head records 6 events/);
    await s.close();
    assert.equal((await store.verify(id)).ok, false);
  });
});

Deno.test("defect 8: editing an event and recomputing the chain with the public unkeyed function fails verify", async () => {
  await withStore(async (store) => {
    const id = await sessionWith(store, 5);
    const db = new DatabaseSync(store.pathOf(id));
    db.exec("UPDATE events SET payload = X'6576696c' WHERE sequence = 2");
    // The attacker's recomputation: every hash again from the genesis.
    let prev = chainGenesis(id);
    const update = db.prepare("UPDATE events SET hash = ? WHERE sequence = ?");
    for (const e of [...hashedEvents(db, false)]) {
      prev = eventHash(prev, e as HashedEvent);
      update.run(prev, e.sequence);
    }
    db.close();
    const r = await store.verify(id);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.reason, "hash_mismatch");
    assert.equal(r.firstBadSequence, 1);

    // Downgrading the file to the legacy scheme as well is caught by the head.
    const db2 = new DatabaseSync(store.pathOf(id));
    db2.exec("UPDATE chain SET scheme = 'sha256', key_id = NULL");
    db2.close();
    const fresh = new SqliteSessionStore({
      dir: store.dir,
      headsDir: store.headsDir,
      keyPath: `${store.dir}/../data/agent/installation.key`,
    });
    try {
      const d = await fresh.verify(id);
      assert.equal(d.ok, false);
      if (!d.ok) {
        assert.equal(d.reason, "head_mismatch");
        assert.match(d.message, /written for a hmac-sha256 chain/);
      }
    } finally {
      await fresh.close();
    }
  });
});

Deno.test("defect 8: a missing or forged head file is reported", async () => {
  await withStore(async (store) => {
    const id = await sessionWith(store, 3);
    const head = `${store.headsDir}/${id}.head`;
    const saved = await Deno.readTextFile(head);
    const ok = await store.verify(id);
    assert.ok(ok.ok && ok.chain === "keyed" && ok.headCheck === "match");
    await Deno.remove(head);
    const missing = await store.verify(id);
    assert.equal(!missing.ok && missing.reason, "head_missing");
    await Deno.writeTextFile(
      head,
      saved.replace('"sequence":3', '"sequence":2'),
    );
    const forged = await store.verify(id);
    assert.equal(!forged.ok && forged.reason, "head_invalid");
    assert.match(!forged.ok ? forged.message : "", /MAC does not match/);
  });
});

Deno.test("defect 8: a session keyed with another installation key is not reported as verified", async () => {
  await withStore(async (store, root) => {
    const id = await sessionWith(store, 2);
    await store.close();
    const other = new SqliteSessionStore({
      dir: store.dir,
      headsDir: store.headsDir,
      keyPath: `${root}/other/installation.key`,
    });
    try {
      const r = await other.verify(id);
      assert.equal(!r.ok && r.reason, "unknown_key");
    } finally {
      await other.close();
    }
  });
});

Deno.test("loadInstallationKey() creates a 0600 key once and refuses one others can read", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-key-" });
  try {
    const path = `${root}/agent/installation.key`;
    assert.throws(
      () => loadInstallationKey(path, { create: false }),
      InstallationKeyError,
    );
    const key = loadInstallationKey(path);
    assert.equal(key.bytes.length, 32);
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(`${root}/agent`).mode! & 0o777, 0o700);
    assert.deepEqual(loadInstallationKey(path), key);
    assert.deepEqual(
      [...Deno.readDirSync(`${root}/agent`)].map((e) => e.name),
      ["installation.key"],
    );
    Deno.chmodSync(path, 0o644);
    assert.throws(
      () => loadInstallationKey(path),
      (e) =>
        e instanceof InstallationKeyError &&
        e.code === "installation_key_unusable" &&
        /mode is 0644.*chmod 600/.test(e.message),
    );
    Deno.chmodSync(path, 0o600);
    Deno.writeFileSync(path, new Uint8Array(5));
    assert.throws(() => loadInstallationKey(path), /holds 5 bytes, not 32/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
