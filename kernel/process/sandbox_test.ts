import assert from "node:assert/strict";
import { join } from "node:path";
import { bwrapArgs, probeSandbox } from "./sandbox.ts";

Deno.test("bwrapArgs() unshares every namespace and keeps bubblewrap's init (which reaps orphans and lets a plugin signal itself)", () => {
  const args = bwrapArgs({
    readOnly: [],
    readWrite: [],
    network: false,
    cwd: "/",
  });
  assert.ok(args.includes("--unshare-all"));
  assert.ok(args.includes("--die-with-parent"));
  assert.ok(!args.includes("--as-pid-1"));
});

Deno.test({
  name:
    "bwrapArgs() shows the host's time zone (/etc/localtime), so that ICU does not search /usr/share/zoneinfo at every start",
  ignore: Deno.build.os !== "linux",
  fn: () => {
    const args = bwrapArgs({
      readOnly: [],
      readWrite: [],
      network: false,
      cwd: "/",
    }).join(" ");
    let st: Deno.FileInfo | undefined;
    try {
      st = Deno.lstatSync("/etc/localtime");
    } catch {
      // a host without a time zone file: nothing to show
    }
    if (st === undefined) {
      assert.ok(!args.includes("/etc/localtime"), args);
      return;
    }
    assert.ok(
      args.includes(
        st.isSymlink
          ? `--symlink ${Deno.readLinkSync("/etc/localtime")} /etc/localtime`
          : "--ro-bind /etc/localtime /etc/localtime",
      ),
      args,
    );
  },
});

Deno.test("bwrapArgs() binds a private directory over part of a read-only one, after every other bind", () => {
  const args = bwrapArgs({
    readOnly: ["/srv/cache"],
    readWrite: ["/srv/run/p1"],
    network: false,
    cwd: "/",
    private: [{
      source: "/srv/run/p1/node_compat_bin",
      path: "/srv/cache/node_compat_bin",
    }],
  });
  const text = args.join(" ");
  const ro = text.indexOf("--ro-bind-try /srv/cache /srv/cache");
  const rw = text.indexOf("--bind-try /srv/run/p1 /srv/run/p1");
  const own = text.indexOf(
    "--bind /srv/run/p1/node_compat_bin /srv/cache/node_compat_bin",
  );
  assert.ok(ro >= 0 && rw >= 0 && own > ro && own > rw, text);
  assert.throws(
    () =>
      bwrapArgs({
        readOnly: [],
        readWrite: [],
        network: false,
        cwd: "/",
        private: [{ source: "rel", path: "/x" }],
      }),
    RangeError,
  );
});

Deno.test("probeSandbox() looks bwrap up on the PATH it is given, as a launch does", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-probe-" });
  try {
    const empty = join(dir, "empty");
    await Deno.mkdir(empty);
    const missing = await probeSandbox("bwrap", empty);
    assert.equal(missing.available, false);
    assert.match(missing.reason ?? "", /"bwrap" is not installed/);
    // A bwrap that cannot create namespaces (here: one that always fails).
    const broken = join(dir, "broken");
    await Deno.mkdir(broken);
    await Deno.writeTextFile(
      join(broken, "bwrap"),
      "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
    );
    await Deno.chmod(join(broken, "bwrap"), 0o755);
    const refused = await probeSandbox("bwrap", `${broken}:/usr/bin:/bin`);
    assert.equal(refused.available, false);
    assert.match(
      refused.reason ?? "",
      /"bwrap" exited 1: bwrap: No permissions to creating new namespace/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
