/**
 * Permission scoping of Deno plugins, observed from inside the plugin:
 * an empty environment plus the grant, and Deno's own refusals for
 * everything else.
 */
import assert from "node:assert/strict";
import { PluginHost, PluginStartError } from "../kernel/mod.ts";
import { invoke, launchProbe, PATH, pidAlive } from "./_helpers.ts";

const SECRET = "s3cr3t-value-never-shared";

Deno.test("a secret in the kernel's environment is unreadable inside the plugin", async () => {
  await using host = new PluginHost({
    env: { PATH, KERNEL_SECRET: SECRET, HOME: "/root" },
  });
  const probe = await launchProbe(host);
  const res = await invoke(probe, "getenv", { name: "KERNEL_SECRET" });
  assert.match(
    String(res.error),
    /NotCapable: Requires env access to "KERNEL_SECRET"/,
  );
  assert.ok(!JSON.stringify(res).includes(SECRET));
});

Deno.test("the plugin's environment holds only the handshake variables, PATH and its grant", async () => {
  await using host = new PluginHost({
    env: {
      PATH,
      KERNEL_SECRET: SECRET,
      GRANTED_TOKEN: "tok",
      OTHER: "x",
      HOME: "/root",
    },
  });
  // `env` prints the whole environment the plugin process really has.
  const probe = await launchProbe(host, {
    env: ["GRANTED_TOKEN"],
    run: ["env"],
  }, {
    env: ["GRANTED_TOKEN", "OTHER"],
    run: ["env"],
  });
  assert.deepEqual(await invoke(probe, "getenv", { name: "GRANTED_TOKEN" }), {
    value: "tok",
  });
  const { stdout } = await invoke(probe, "run", { cmd: "env" });
  // bubblewrap (the OS sandbox) sets PWD to the plugin's working
  // directory, which is no value of the kernel's environment.
  const names = String(stdout).trim().split("\n").map((l) => l.split("=")[0])
    .filter((n) => n !== "PWD")
    .sort();
  assert.deepEqual(names, [
    "DENO_DIR",
    "DENO_NO_UPDATE_CHECK",
    "GRANTED_TOKEN",
    "NO_COLOR",
    "OTEL_RESOURCE_ATTRIBUTES",
    "PATH",
    "PLUGGABLEHARNESS_AGENT_PLUGIN",
    "PLUGGABLEHARNESS_LOG_LEVEL",
    "PLUGGABLEHARNESS_TRANSPORTS",
    "PLUGIN_MAX_PORT",
    "PLUGIN_MIN_PORT",
    "PLUGIN_PROTOCOL_VERSIONS",
    "PLUGIN_UNIX_SOCKET_DIR",
    "TMPDIR",
  ]);
  assert.ok(!String(stdout).includes(SECRET));
});

Deno.test("Deno's runtime settings reach a Deno plugin, which may read them without a grant", async () => {
  const cert = "/etc/ssl/certs/corp-root.pem";
  await using host = new PluginHost({
    env: {
      PATH,
      NODE_EXTRA_CA_CERTS: cert,
      https_proxy: "http://proxy.invalid:3128",
      NO_PROXY: "127.0.0.1,localhost",
      // Not passed on: the plugin's modules are in the kernel process's
      // cache, under the kernel process's registry (else it would not start).
      NPM_CONFIG_REGISTRY: "http://npm.invalid/",
      DENO_AUTH_TOKENS: SECRET,
    },
  });
  const probe = await launchProbe(host, { run: ["env"] }, { run: ["env"] });
  const { stdout } = await invoke(probe, "run", { cmd: "env" });
  const env = Object.fromEntries(
    String(stdout).trim().split("\n").map((l) => [
      l.slice(0, l.indexOf("=")),
      l.slice(l.indexOf("=") + 1),
    ]),
  );
  assert.equal(env.NODE_EXTRA_CA_CERTS, cert);
  // A lower-case proxy is given under the upper-case name Deno also reads:
  // grpc-js reads only the lower-case one, and must not see it.
  assert.equal(env.HTTPS_PROXY, "http://proxy.invalid:3128");
  assert.equal(env.https_proxy, undefined);
  assert.equal(env.NO_PROXY, "127.0.0.1,localhost");
  assert.equal(env.NPM_CONFIG_REGISTRY, Deno.env.get("NPM_CONFIG_REGISTRY"));
  assert.equal(env.DENO_AUTH_TOKENS, undefined, "credentials stay out");
  assert.ok(!String(stdout).includes(SECRET));
  assert.deepEqual(await invoke(probe, "getenv", { name: "HTTPS_PROXY" }), {
    value: "http://proxy.invalid:3128",
  });
  assert.deepEqual(await invoke(probe, "getenv", { name: "NO_PROXY" }), {
    value: "127.0.0.1,localhost",
  });
  assert.match(
    String((await invoke(probe, "getenv", { name: "DENO_AUTH_TOKENS" })).error),
    /NotCapable: Requires env access to "DENO_AUTH_TOKENS"/,
  );
});

Deno.test("running a binary that is not granted is refused inside the plugin", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const probe = await launchProbe(host);
  const res = await invoke(probe, "run", { cmd: "ls", args: ["/"] });
  assert.match(String(res.error), /NotCapable: Requires run access to "ls"/);
});

Deno.test("a granted binary runs, and only that one", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const probe = await launchProbe(host, { run: ["echo"] }, {
    run: ["echo", "ls"],
  });
  assert.deepEqual(await invoke(probe, "run", { cmd: "echo", args: ["hi"] }), {
    code: 0,
    stdout: "hi\n",
  });
  assert.match(
    String((await invoke(probe, "run", { cmd: "ls" })).error),
    /Requires run access to "ls"/,
  );
});

Deno.test("reading outside the granted roots is refused inside the plugin", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ok.txt`, "granted");
    await using host = new PluginHost({ env: { PATH } });
    const probe = await launchProbe(host, { read: [dir] }, { read: [dir] });
    assert.deepEqual(await invoke(probe, "read", { path: `${dir}/ok.txt` }), {
      text: "granted",
    });
    assert.match(
      String((await invoke(probe, "read", { path: "/etc/hostname" })).error),
      /NotCapable: Requires read access to "\/etc\/hostname"/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a manifest asking for an ungranted permission is refused before launch, naming it", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const before = new Set(Deno.readDirSync("/proc").map((e) => e.name));
  await assert.rejects(
    launchProbe(host, { env: ["AWS_SECRET_ACCESS_KEY"], run: ["git"] }, {
      run: ["ls"],
    }),
    (e: unknown) => {
      assert.ok(e instanceof PluginStartError);
      assert.equal(e.code, "plugin_permission_denied");
      assert.match(
        e.message,
        /^Cannot start plugin "probe" \(.*probe\/main.ts\): its manifest asks for permissions the operator did not grant: env permission "AWS_SECRET_ACCESS_KEY" is not granted; run permission "git" is not granted$/,
      );
      return true;
    },
  );
  // Nothing was spawned.
  const spawned = [...new Set(Deno.readDirSync("/proc").map((e) => e.name))]
    .filter((n) =>
      /^\d+$/.test(n) && !before.has(n) && pidAlive(Number(n)) &&
      Deno.readTextFileSync(`/proc/${n}/cmdline`).includes("probe/main.ts")
    );
  assert.deepEqual(spawned, []);
});
