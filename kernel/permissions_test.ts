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
