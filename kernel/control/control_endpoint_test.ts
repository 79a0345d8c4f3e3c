import assert from "node:assert/strict";
import { join } from "node:path";
import {
  deliverToLiveSession,
  type EndpointSession,
  ensureRunDir,
  findLiveHolder,
  startControlEndpoint,
} from "./control_endpoint.ts";
import { claimForResume, tryClaimSession } from "./session_claim.ts";
import { currentOwner } from "../state/_owner.ts";

const ID = "01JAAAAAAAAAAAAAAAAAAAAAAA";

/** The names in a directory; none when it does not exist. */
function entries(path: string): string[] {
  try {
    return [...Deno.readDirSync(path)].map((e) => e.name);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

Deno.test("startControlEndpoint() hands a trigger to the live session it holds, on a socket only its user may open", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const runDir = join(dir, ".agent", "run");
    const posted: unknown[] = [];
    const live: EndpointSession = {
      inject: (source, text, channel) => {
        posted.push({ source, text, channel });
        return "queued";
      },
    };
    await using endpoint = await startControlEndpoint(runDir, {
      lookup: (id) => (id === ID ? live : undefined),
    });
    assert.equal((await Deno.stat(runDir)).mode! & 0o777, 0o700);
    assert.equal((await Deno.stat(endpoint.path)).mode! & 0o777, 0o600);
    assert.equal(
      await deliverToLiveSession(runDir, {
        session: "01JBBBBBBBBBBBBBBBBBBBBBBB",
        text: "x",
      }),
      undefined,
    );
    const d = await deliverToLiveSession(runDir, {
      session: ID,
      text: "The build failed",
      name: "ci",
    });
    assert.deepEqual(d, { pid: Deno.pid, outcome: "queued" });
    assert.deepEqual(posted, [{
      source: "trigger:ci",
      text: "The build failed",
      channel: {
        channel: "external-trigger",
        attributes: { name: "ci", target: ID, session: ID },
      },
    }]);
    assert.equal(await findLiveHolder(runDir, ID), Deno.pid);
    // The caller's own endpoint can be left out.
    assert.equal(
      await findLiveHolder(runDir, ID, { except: endpoint.path }),
      undefined,
    );
    await endpoint.close();
    // The socket, the run directory and the .agent it created are gone.
    assert.deepEqual(entries(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deliverToLiveSession() removes a socket whose kernel is gone and reports a kernel's refusal", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const runDir = join(dir, "run");
    const stale = await startControlEndpoint(runDir, { lookup: () => ({}) });
    // A socket left by a killed kernel: nothing listens on it.
    await Deno.writeTextFile(join(runDir, "999999-00000000.sock"), "");
    const d = await deliverToLiveSession(runDir, { session: ID, text: "x" });
    // The live one holds it, without a control plane.
    assert.deepEqual(d, { pid: Deno.pid, outcome: "no_control_plane" });
    await stale.close();
    assert.equal(
      await deliverToLiveSession(runDir, { session: ID, text: "x" }),
      undefined,
    );
    assert.deepEqual(entries(runDir), []);
    await using throwing = await startControlEndpoint(runDir, {
      lookup: () => ({
        inject: () => {
          throw new TypeError("bad attributes");
        },
      }),
    });
    assert.ok(throwing.path);
    await assert.rejects(
      deliverToLiveSession(runDir, { session: ID, text: "x" }),
      /its kernel answered: bad attributes/,
    );
    await throwing.close();
    // A session that has begun closing takes nothing: the trigger is told
    // so (it waits for the stored session) rather than answered "queued".
    let injected = 0;
    await using closing = await startControlEndpoint(runDir, {
      lookup: () => ({
        isClosing: () => true,
        inject: () => {
          injected++;
          return "queued";
        },
      }),
    });
    assert.ok(closing.path);
    assert.deepEqual(
      await deliverToLiveSession(runDir, { session: ID, text: "x" }),
      { pid: Deno.pid, outcome: "closing" },
    );
    assert.equal(injected, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tryClaimSession() lets one claimant in, and takes over the claim of a process that is gone", async () => {
  const root = await Deno.makeTempDir();
  const dir = join(root, "run");
  try {
    const first = await tryClaimSession(dir, ID);
    assert.equal(first.claimed, true);
    const second = await tryClaimSession(dir, ID);
    assert.equal(second.claimed, false);
    if (!second.claimed) assert.equal(second.holder.pid, Deno.pid);
    if (first.claimed) await first.claim.release();
    const third = await tryClaimSession(dir, ID);
    assert.equal(third.claimed, true);
    if (third.claimed) await third.claim.release();
    // A claim whose process is gone (same pid, another start time).
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      join(dir, `${ID}.claim`),
      JSON.stringify({ ...currentOwner(), startTime: "1" }),
    );
    const taken = await tryClaimSession(dir, ID);
    assert.equal(taken.claimed, true);
    if (taken.claimed) await taken.claim.release();
    await assert.rejects(
      tryClaimSession(dir, "../x"),
      /a session id has only letters and digits/,
    );
    assert.deepEqual(entries(root), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("tryClaimSession() claims although another process's cleanup removes the empty run directory between its mkdir and its write", async () => {
  const root = await Deno.makeTempDir();
  const dir = join(root, "run");
  const write = Deno.writeTextFile;
  let removed = 0;
  // Stand for the other process: its cleanup removes the (still empty) run
  // directory just before this process writes its temporary claim file.
  Deno.writeTextFile = (async (...args: Parameters<typeof write>) => {
    if (String(args[0]).endsWith(".tmp") && removed === 0) {
      removed++;
      await Deno.remove(dir);
    }
    return await write(...args);
  }) as typeof write;
  try {
    const outcome = await tryClaimSession(dir, ID);
    assert.equal(removed, 1);
    assert.equal(outcome.claimed, true);
    if (outcome.claimed) await outcome.claim.release();
    assert.deepEqual(entries(root), []);
  } finally {
    Deno.writeTextFile = write;
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("claimForResume() refuses a session a live kernel of the project holds, naming its pid, and claims a stored one", async () => {
  const dir = await Deno.makeTempDir();
  const runDir = join(dir, ".agent", "run");
  try {
    {
      await using _live = await startControlEndpoint(runDir, {
        lookup: (id) => id === ID ? {} : undefined,
      });
      await assert.rejects(
        claimForResume(runDir, ID),
        new RegExp(
          `Session ${ID} is open in process ${Deno.pid}: use "agent attach`,
        ),
      );
    }
    const claim = await claimForResume(runDir, ID);
    const again = await tryClaimSession(runDir, ID);
    assert.equal(again.claimed, false, "the resume holds the claim");
    await claim.release();
    assert.equal((await tryClaimSession(runDir, ID)).claimed, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ensureRunDir: of two processes racing on a project without .agent/, the last to leave removes .agent/; a .agent/ of the user's stays", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const parent = join(dir, ".agent");
    const runDir = join(parent, "run");
    const exists = (p: string) => Deno.stat(p).then(() => true, () => false);
    // A makes .agent/run; B comes after, so .agent exists for it; A leaves
    // first while B's claim is still in the run directory.
    const a = await ensureRunDir(runDir);
    const b = await ensureRunDir(runDir);
    const claim = join(runDir, "B.claim");
    await Deno.writeTextFile(claim, "");
    await a();
    assert.equal(await exists(claim), true, "B's file is untouched");
    await Deno.remove(claim);
    await b();
    assert.equal(await exists(parent), false, "B removed what A made");
    // B leaving first leaves nothing either.
    const c = await ensureRunDir(runDir);
    const d = await ensureRunDir(runDir);
    await d();
    await c();
    assert.equal(await exists(parent), false);
    // The user's .agent/, empty or not, is left as it was.
    for (const files of [[], ["agent.lock.hcl"]]) {
      await Deno.mkdir(parent);
      for (const f of files) await Deno.writeTextFile(join(parent, f), "");
      const e = await ensureRunDir(runDir);
      const f = await ensureRunDir(runDir);
      await Deno.writeTextFile(claim, "");
      await e();
      await Deno.remove(claim);
      await f();
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(parent))).map((x) => x.name),
        files,
      );
      await Deno.remove(parent, { recursive: true });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
