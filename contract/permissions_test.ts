import assert from "node:assert/strict";
import {
  denoPermissionFlags,
  formatDenials,
  resolvePermissions,
} from "./permissions.ts";

const none = { env: [], run: [], read: [], write: [], net: [] };

Deno.test("resolvePermissions() intersects the envelope with the grant", () => {
  const { effective, denied } = resolvePermissions(
    {
      env: ["TOKEN"],
      run: ["git"],
      read: ["src"],
      write: ["out/x.txt"],
      net: ["api.example.com:443"],
    },
    {
      env: ["TOKEN", "OTHER"],
      run: ["git", "rm"],
      read: ["/repo"],
      write: ["out"],
      net: ["*.example.com"],
    },
    { cwd: "/repo" },
  );
  assert.deepEqual(denied, []);
  assert.deepEqual(effective, {
    env: ["TOKEN"],
    run: ["git"],
    read: ["/repo/src"],
    write: ["/repo/out/x.txt"],
    net: ["api.example.com:443"],
  });
});

Deno.test("resolvePermissions() denies every declared permission the grant lacks", () => {
  const { effective, denied } = resolvePermissions(
    {
      env: ["SECRET", "AWS_KEY"],
      run: ["bash"],
      read: ["/etc"],
      write: ["/repo/../etc"],
      net: ["evil.com"],
    },
    {
      env: ["AWS_*"],
      run: ["git"],
      read: ["/repo"],
      write: ["/repo"],
      net: ["good.com", "*.evil.com"],
    },
    { cwd: "/repo" },
  );
  assert.deepEqual(denied, [
    { kind: "env", value: "SECRET" },
    { kind: "run", value: "bash" },
    { kind: "read", value: "/etc" },
    { kind: "write", value: "/repo/../etc" },
    { kind: "net", value: "evil.com" },
  ]);
  assert.deepEqual(effective.env, ["AWS_KEY"]);
  assert.equal(
    formatDenials(denied.slice(0, 2)),
    'env permission "SECRET" is not granted; run permission "bash" is not granted',
  );
});

Deno.test("resolvePermissions() matches paths on segments, not string prefixes", () => {
  const { denied } = resolvePermissions({ ...none, read: ["/repo-other/x"] }, {
    read: ["/repo"],
  }, {
    cwd: "/",
  });
  assert.deepEqual(denied, [{ kind: "read", value: "/repo-other/x" }]);
});

Deno.test("resolvePermissions() with no grant denies everything declared and grants nothing", () => {
  const { effective, denied } = resolvePermissions(
    { ...none, run: ["git"] },
    {},
    { cwd: "/" },
  );
  assert.deepEqual(effective, none);
  assert.equal(denied.length, 1);
});

Deno.test("denoPermissionFlags() never emits an empty allow-list (which would grant all)", () => {
  const flags = denoPermissionFlags(none, {
    env: [],
    socketDirs: [],
    loopback: [],
  });
  assert.deepEqual(flags, []);
  for (
    const f of denoPermissionFlags({ ...none, env: ["A"] }, {
      env: [],
      socketDirs: [],
      loopback: [],
    })
  ) {
    assert.doesNotMatch(f, /=$/);
  }
});

Deno.test("denoPermissionFlags() adds transport needs and deduplicates", () => {
  const flags = denoPermissionFlags(
    {
      env: ["TOKEN"],
      run: ["git"],
      read: ["/repo"],
      write: [],
      net: ["api.example.com"],
    },
    {
      env: ["COOKIE", "TOKEN"],
      socketDirs: ["/run/p1"],
      loopback: ["unix:/run/p1/plugin.sock"],
    },
  );
  assert.deepEqual(flags, [
    "--allow-env=COOKIE,TOKEN",
    "--allow-run=git",
    "--allow-read=/run/p1,/repo",
    "--allow-write=/run/p1",
    "--allow-net=unix:/run/p1/plugin.sock,api.example.com",
  ]);
  assert.ok(
    !flags.includes("-A") && !flags.some((f) => f.startsWith("--allow-all")),
  );
});

Deno.test("denoPermissionFlags() refuses a value it cannot express", () => {
  assert.throws(
    () =>
      denoPermissionFlags({ ...none, read: ["/a,b"] }, {
        env: [],
        socketDirs: [],
        loopback: [],
      }),
    /contains a comma/,
  );
});

Deno.test('resolvePermissions(): a declared net "*" passes on exactly the granted hosts, and none is no denial', () => {
  const declared = { ...none, net: ["*"] };
  const granted = resolvePermissions(declared, {
    net: ["192.168.1.20:11434", "127.0.0.1"],
  }, { cwd: "/" });
  assert.deepEqual(granted.denied, []);
  assert.deepEqual(granted.effective.net, ["192.168.1.20:11434", "127.0.0.1"]);
  const nothing = resolvePermissions(declared, {}, { cwd: "/" });
  assert.deepEqual(nothing.denied, []);
  assert.deepEqual(nothing.effective.net, []);
  // A fixed host beside "*" must still be granted.
  const both = resolvePermissions({ ...none, net: ["*", "api.example.com"] }, {
    net: ["10.0.0.5"],
  }, { cwd: "/" });
  assert.deepEqual(both.denied, [{ kind: "net", value: "api.example.com" }]);
});

Deno.test('resolvePermissions(): a declared run "*" passes on the granted programs, never a literal "*"', () => {
  const r = resolvePermissions({ ...none, run: ["*"], net: ["*"] }, {
    run: ["deno", "*"],
    net: ["*", "docs.example.com"],
  }, { cwd: "/" });
  assert.deepEqual(r.denied, []);
  assert.deepEqual(r.effective.run, ["deno"]);
  assert.deepEqual(r.effective.net, ["docs.example.com"]);
});

Deno.test('resolvePermissions(): declared read/write "*" pass on the granted paths, with ~ and $XDG_DATA_HOME expanded', () => {
  const r = resolvePermissions({ ...none, read: ["*"], write: ["*"] }, {
    read: ["$XDG_DATA_HOME/agent", "docs"],
    write: ["~/notes"],
  }, { cwd: "/repo", env: { HOME: "/home/a", XDG_DATA_HOME: "/data" } });
  assert.deepEqual(r.denied, []);
  assert.deepEqual(r.effective.read, ["/data/agent", "/repo/docs"]);
  assert.deepEqual(r.effective.write, ["/home/a/notes"]);
  // Without the environment an XDG path cannot be granted or declared.
  const d = resolvePermissions({ ...none, read: ["$XDG_DATA_HOME/agent"] }, {
    read: ["$XDG_DATA_HOME/agent"],
  }, { cwd: "/repo" });
  assert.deepEqual(d.denied, [{ kind: "read", value: "$XDG_DATA_HOME/agent" }]);
});

Deno.test('resolvePermissions(): an optional run entry ("rg?") is passed on when granted and is no denial when not', () => {
  const declared = { ...none, run: ["rg?"], read: ["/w"] };
  const granted = resolvePermissions(declared, {
    run: ["rg"],
    read: ["/w"],
  }, { cwd: "/" });
  assert.deepEqual(granted.denied, []);
  assert.deepEqual(granted.effective.run, ["rg"]);
  const without = resolvePermissions(declared, { read: ["/w"] }, {
    cwd: "/",
  });
  assert.deepEqual(without.denied, []);
  assert.deepEqual(without.effective.run, []);
  // Another program granted is not passed on: only the one declared.
  const other = resolvePermissions(declared, {
    run: ["bash"],
    read: ["/w"],
  }, { cwd: "/" });
  assert.deepEqual(other.effective.run, []);
});
