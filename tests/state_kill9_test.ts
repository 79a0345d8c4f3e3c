/**
 * Durability of acknowledged events across `kill -9` (kernel.md §3, issue 4):
 * a writer subprocess emits as fast as it can and prints each acknowledged
 * sequence; the test kills it with SIGKILL mid-stream, reopens the file and
 * checks that every acknowledged event is there, that no event is partial
 * (payload intact, companion cost_ledger row present) and that the hash
 * chain verifies.
 */
import assert from "node:assert/strict";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import type { EventRecord } from "../kernel/state/session_store.ts";
import { REPO } from "./_helpers.ts";
import { PAYLOAD_BYTES, payloadFor } from "./fixtures/state/writer_main.ts";

const WRITER = `${REPO}/tests/fixtures/state/writer_main.ts`;

interface Ack {
  sequence: number;
  id: string;
  index: number;
}

async function killMidStream(
  dir: string,
  sessionId: string,
  inflight: number,
  killAfterMs: number,
): Promise<{ acks: Ack[]; signal: Deno.Signal | null }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--allow-read",
      `--allow-write=${dir}`,
      WRITER,
      dir,
      sessionId,
      "0",
      String(inflight),
    ],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const acks: Ack[] = [];
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  let buffered = "";
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      const lines = buffered.split("\n");
      buffered = lines.pop()!; // a line cut by the kill is not an ack
      for (const line of lines) {
        const [tag, seq, id, index] = line.split(" ");
        if (tag !== "ack") continue;
        acks.push({ sequence: Number(seq), id, index: Number(index) });
      }
      // Kill a little after the 21st ack, so that enough emits are
      // acknowledged (and more in flight) however slow the machine is.
      if (acks.length > 20 && killTimer === undefined) {
        killTimer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      }
    }
  } finally {
    clearTimeout(killTimer);
  }
  const status = await child.status;
  const err = await stderr;
  assert.equal(status.success, false, `the writer ended by itself: ${err}`);
  return { acks, signal: status.signal };
}

async function checkSurvivors(
  dir: string,
  sessionId: string,
  acks: Ack[],
): Promise<number> {
  await using store = new SqliteSessionStore({
    dir,
    keyPath: `${dir}/key/installation.key`,
  });
  const session = await store.open(sessionId);
  assert.equal(session.recovery, undefined, "the file needed no salvage");
  const events: EventRecord[] = [];
  for await (const e of session.readEvents()) events.push(e);
  // Contiguous sequences, each one the emit index (commit order = call order).
  assert.ok(events.length >= acks.length);
  const bySeq = new Map(events.map((e) => [e.sequence, e]));
  events.forEach((e, i) => assert.equal(e.sequence, i + 1));
  // Every acknowledged event is present, with its id.
  for (const a of acks) {
    const e = bySeq.get(a.sequence);
    assert.ok(e, `acknowledged event ${a.sequence} is missing`);
    assert.equal(e.id, a.id);
    assert.equal(a.index, a.sequence);
  }
  // No partial event: full payloads, and each message has its ledger row.
  let messages = 0;
  for (const e of events) {
    assert.equal(e.payload.length, PAYLOAD_BYTES);
    assert.deepEqual(e.payload, payloadFor(e.sequence));
    if (e.kind === EventKind.MESSAGE) messages++;
  }
  const ledger = await session.costLedger();
  assert.equal(ledger.length, messages);
  for (const row of ledger) {
    assert.equal(bySeq.get(row.eventSequence)?.kind, EventKind.MESSAGE);
    assert.equal(row.inputTokens, row.eventSequence);
  }
  const verified = await session.verify();
  assert.equal(verified.ok, true, JSON.stringify(verified));
  return events.length;
}

for (
  const [name, inflight] of [
    ["group commit, 64 emits in flight", 64],
    ["one transaction per event", 1],
  ] as const
) {
  Deno.test(`every acknowledged emit survives kill -9 of the writer (${name})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "ph-state-kill9-" });
    try {
      const store = new SqliteSessionStore({
        dir,
        keyPath: `${dir}/key/installation.key`,
      });
      const s = await store.create({ profile: "kill9" });
      await store.close();
      const killAfterMs = 150 + Math.floor(Math.random() * 300);
      const { acks, signal } = await killMidStream(
        dir,
        s.sessionId,
        inflight,
        killAfterMs,
      );
      assert.equal(signal, "SIGKILL");
      assert.ok(acks.length > 20, `only ${acks.length} acks before the kill`);
      const stored = await checkSurvivors(dir, s.sessionId, acks);
      console.log(
        `${name}: killed after ${killAfterMs} ms, ${acks.length} acknowledged, ${stored} stored`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
