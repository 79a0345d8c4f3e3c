import assert from "node:assert/strict";
import { LogLevel } from "../../proto/gen/pluggableharness/log/v1/types_pb.ts";
import type { KernelClient } from "./serve.ts";
import { createPluginLogger, parseLogFloor } from "./logger.ts";

/** A kernel client that records the levels of every `Log` it receives. */
function recordingKernel() {
  const sent: LogLevel[] = [];
  let dialed = 0;
  const client = {
    log: (req: { entries: { level: LogLevel }[] }) => {
      sent.push(...req.entries.map((e) => e.level));
      return Promise.resolve({});
    },
  } as unknown as KernelClient;
  return {
    sent,
    get dialed() {
      return dialed;
    },
    kernel: () => {
      dialed++;
      return Promise.resolve(client);
    },
  };
}

Deno.test("entries below the kernel's log floor are dropped without opening the callback channel", async () => {
  const k = recordingKernel();
  const log = createPluginLogger(k.kernel, { floor: LogLevel.INFO });
  log.trace("t");
  log.debug("d");
  await log.flush();
  assert.equal(k.dialed, 0, "nothing to send: the channel is never asked for");
  log.debug("d");
  log.info("i");
  log.error("e");
  await log.flush();
  assert.deepEqual(k.sent, [LogLevel.INFO, LogLevel.ERROR]);
});

Deno.test("without a floor every entry is sent, and 'off' sends none", async () => {
  const all = recordingKernel();
  const log = createPluginLogger(all.kernel);
  log.trace("t");
  log.fatal("f");
  await log.flush();
  assert.deepEqual(all.sent, [LogLevel.TRACE, LogLevel.FATAL]);

  const none = recordingKernel();
  const off = createPluginLogger(none.kernel, { floor: "off" });
  off.fatal("f");
  await off.flush();
  assert.equal(none.dialed, 0);
});

Deno.test("parseLogFloor reads the kernel's level names and ignores anything else", () => {
  assert.equal(parseLogFloor("info"), LogLevel.INFO);
  assert.equal(parseLogFloor("WARN"), LogLevel.WARN);
  assert.equal(parseLogFloor("off"), "off");
  assert.equal(parseLogFloor("verbose"), undefined);
  assert.equal(parseLogFloor(undefined), undefined);
});
