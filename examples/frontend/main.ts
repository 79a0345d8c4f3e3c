/**
 * A reference frontend plugin (plugins.md §6.5): it serves only
 * `FrontendService` (GetCapabilities, Configure, Describe) and drives a
 * session through its callback connection — `CreateSession` (or
 * `ListSessions` + `AttachSession` to re-attach), `StreamDeltas` for
 * tokens, `ReadEvents` for the durable transcript (plans, tool results,
 * messages), `SubmitInput`, `ResolvePlanDecision` and
 * `InvokeSlashCommand`.
 *
 * The operator's lines come from the `input` file (a plugin's stdin is not
 * the terminal under go-plugin), one per line:
 *
 * - `attach` (first line only): attach the most recent running session
 *   (waiting for one) instead of creating one;
 * - `allow` / `deny`: answer the next plan item that asks;
 * - `wait`: wait until every prompt sent so far has its final answer;
 *   `wait N`: until the transcript holds N final answers (after `attach`);
 * - `/name args`: run a direct-invoke slash command;
 * - `metadata`: print the session's metadata blocks (`ListMetadata`);
 *   `metadata N`: once it has N blocks;
 * - `crash-at-ask`: exit with status 3 once a plan item asks (a crash);
 * - anything else: a prompt.
 *
 * Everything it sees is appended to the `output` file. After the last
 * line it detaches and exits.
 *
 * @module
 */
import {
  create,
  fromBinary,
  type JsonObject,
  toBinary,
} from "@bufbuild/protobuf";
import {
  FrontendErrorCategory,
  FrontendErrorSchema,
} from "../../proto/gen/pluggableharness/frontend/v1/errors_pb.ts";
import { type KernelClient, serve, service } from "../../plugins/sdk/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { FrontendService } from "../../proto/gen/pluggableharness/frontend/v1/service_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  MessageEventSchema,
  PlanEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  ClientDecision,
  PlanDecision,
  PlanDecisionScope,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { Liveness } from "../../proto/gen/pluggableharness/metadata/v1/types_pb.ts";
import manifest from "./plugin.json" with { type: "json" };

interface Settings {
  input: string;
  output: string;
  profile: string;
}

/**
 * A Configure failure as plugins.md §6.5 MUST 12 wants it: a gRPC status
 * with a structured `FrontendError` in its details (the kernel reports the
 * category and the message).
 */
function invalidConfig(message: string): GrpcStatusError {
  return new GrpcStatusError(Code.INVALID_ARGUMENT, message, {
    details: [{
      typeUrl: `type.googleapis.com/${FrontendErrorSchema.typeName}`,
      value: toBinary(
        FrontendErrorSchema,
        create(FrontendErrorSchema, {
          category: FrontendErrorCategory.INVALID_REQUEST,
          message,
        }),
      ),
    }],
  });
}

function settingsOf(config: JsonObject | undefined): Settings {
  const str = (name: string, required: boolean): string => {
    const v = config?.[name];
    if (v === undefined || v === null || v === "") {
      if (required) {
        throw invalidConfig(`config attribute "${name}" is required`);
      }
      return "";
    }
    if (typeof v !== "string") {
      throw invalidConfig(`config attribute "${name}" must be a string`);
    }
    return v;
  };
  return {
    input: str("input", true),
    output: str("output", true),
    profile: str("profile", false),
  };
}

/** Appends one line to the output file. */
async function print(s: Settings, line: string): Promise<void> {
  await Deno.writeTextFile(s.output, `${line}\n`, { append: true });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The session's transcript as this frontend follows it. */
class Transcript {
  /** Plan items that ask, not yet answered by this frontend. */
  readonly asks: string[] = [];
  /** Final assistant answers seen. */
  finals = 0;
  #next = 1n;
  #stop = false;

  constructor(
    readonly kernel: KernelClient,
    readonly sessionId: string,
    readonly s: Settings,
  ) {}

  /** Reads new events until stopped (ReadEvents from the last sequence). */
  async follow(): Promise<void> {
    for (;;) {
      // After stop, one last pass reads what the last command recorded.
      const stopping = this.#stop;
      let got = 0;
      for await (
        const e of this.kernel.readEvents({
          sessionId: this.sessionId,
          fromSequence: this.#next,
        })
      ) {
        got++;
        this.#next = e.sequence + 1n;
        await this.#show(e.kind, e.payload);
      }
      if (stopping) return;
      if (got === 0) await sleep(20);
    }
  }

  stop(): void {
    this.#stop = true;
  }

  async #show(kind: EventKind, payload: Uint8Array): Promise<void> {
    if (kind === EventKind.MESSAGE) {
      const m = fromBinary(MessageEventSchema, payload).message;
      if (m?.role !== Role.ASSISTANT) return;
      const text = m.content.map((b) =>
        b.block.case === "text" ? b.block.value.text : ""
      ).join("");
      const uses = m.content.filter((b) => b.block.case === "toolUse");
      if (text) await print(this.s, `assistant: ${text}`);
      if (uses.length === 0) this.finals++;
    } else if (kind === EventKind.PLAN) {
      for (
        const item of fromBinary(PlanEventSchema, payload).plan?.items ?? []
      ) {
        const decision = PlanDecision[item.decision] ?? "UNKNOWN";
        await print(
          this.s,
          `plan: ${item.provider}.${item.operationName} ${decision}`,
        );
        if (item.decision === PlanDecision.ASK) this.asks.push(item.id);
      }
    } else if (kind === EventKind.TOOL_RESULT) {
      const r = fromBinary(ToolResultEventSchema, payload);
      await print(
        this.s,
        r.outcome.case === "result"
          ? `result: ${JSON.stringify(r.outcome.value.payload ?? {})}`
          : `error: ${r.outcome.value?.message ?? "unknown"}`,
      );
    }
  }

  /** Waits for the next plan item that asks. */
  async nextAsk(): Promise<string> {
    while (this.asks.length === 0) await sleep(20);
    return this.asks.shift()!;
  }

  /** Waits until `n` final answers have been seen. */
  async finalsReach(n: number): Promise<void> {
    while (this.finals < n) await sleep(20);
  }
}

/** Opens (or re-attaches) the session and plays the input lines. */
async function drive(kernel: KernelClient, s: Settings): Promise<void> {
  const lines = (await Deno.readTextFile(s.input)).split("\n")
    .map((l) => l.trim()).filter((l) => l !== "");
  let sessionId: string;
  if (lines[0] === "attach") {
    lines.shift();
    // Wait for one (`agent run --frontend` opens it after starting us).
    let latest;
    for (let i = 0; i < 1500 && !latest; i++) {
      const { sessions } = await kernel.listSessions({
        status: SessionStatus.RUNNING,
      });
      latest = sessions.at(0);
      if (!latest) await sleep(20);
    }
    if (!latest?.sessionId) throw new Error("no running session to attach");
    sessionId = (await kernel.attachSession({ sessionId: latest.sessionId }))
      .info!.sessionId;
    await print(s, `attached ${sessionId}`);
  } else {
    sessionId = (await kernel.createSession({
      ...(s.profile ? { profile: s.profile } : {}),
    })).info!.sessionId;
    await print(s, `created ${sessionId}`);
  }
  const t = new Transcript(kernel, sessionId, s);
  const following = t.follow();
  // Tokens: a live-only stream; the transcript above is the durable record.
  const deltas = new AbortController();
  (async () => {
    for await (
      const d of kernel.streamDeltas({ sessionId }, { signal: deltas.signal })
    ) await print(s, `delta: ${JSON.stringify(d.text)}`);
  })().catch(() => {});
  let prompts = 0;
  for (const line of lines) {
    if (line === "allow" || line === "deny") {
      const planItemId = await t.nextAsk();
      await kernel.resolvePlanDecision({
        sessionId,
        planItemId,
        decision: line === "allow" ? ClientDecision.ALLOW : ClientDecision.DENY,
        scope: PlanDecisionScope.ONCE,
      });
      await print(s, `answered ${line}`);
    } else if (line === "wait" || /^wait \d+$/.test(line)) {
      await t.finalsReach(line === "wait" ? prompts : Number(line.slice(5)));
    } else if (line === "metadata" || /^metadata \d+$/.test(line)) {
      // `metadata N`: wait until the session has N blocks.
      const want = line === "metadata" ? 0 : Number(line.slice(9));
      let { blocks } = await kernel.listMetadata({ sessionId });
      while (blocks.length < want) {
        await sleep(20);
        ({ blocks } = await kernel.listMetadata({ sessionId }));
      }
      for (const b of blocks) {
        await print(
          s,
          `metadata: ${b.id} ${b.producer?.name} ${Liveness[b.liveness]} ${
            JSON.stringify(
              b.body.value ?? {},
              (k, v) => k === "$typeName" ? undefined : v,
            )
          }`,
        );
      }
    } else if (line === "crash-at-ask") {
      await t.nextAsk();
      await print(s, "crashing");
      Deno.exit(3);
    } else if (line.startsWith("/")) {
      const [name, ...rest] = line.slice(1).split(" ");
      try {
        await kernel.invokeSlashCommand({
          sessionId,
          name: name!,
          args: rest.join(" "),
        });
        await print(s, `command /${name} done`);
      } catch (err) {
        await print(s, `command /${name} failed: ${(err as Error).message}`);
      }
    } else {
      await kernel.submitInput({
        sessionId,
        content: [{ block: { case: "text", value: { text: line } } }],
      });
      prompts++;
    }
  }
  t.stop();
  await following;
  deltas.abort();
  await kernel.detachSession({ sessionId });
  await print(s, "detached");
}

let started = false;

await serve({
  identity: {
    name: manifest.name,
    version: manifest.version,
    category: "frontend",
  },
  services: (ctx) => [
    service(FrontendService, {
      getCapabilities: () => ({ capabilities: {} }),
      configure: (req) => {
        const s = settingsOf(req.config);
        if (!started) {
          started = true;
          // Drive the session once Configure has answered.
          setTimeout(() => {
            ctx.kernel().then((kernel) => drive(kernel, s)).then(
              () => Deno.exit(0),
              async (err) => {
                await print(s, `failed: ${(err as Error).message}`)
                  .catch(() => {});
                Deno.exit(1);
              },
            );
          }, 0);
        }
        return {};
      },
      describe: () => ({
        producer: {
          name: manifest.name,
          version: manifest.version,
          category: Category.FRONTEND,
        },
      }),
    }),
  ],
});
