/**
 * The model servers of `tests/bench_e2e.ts`: the provider tests' own fakes
 * (`_fake_anthropic.ts`, `_fake_openai.ts`), scripted to ask for
 * `read_file` N times and then answer, with every model request and every
 * response end timestamped on this process's `performance.now()` clock.
 *
 * The fakes are used unchanged; two hooks observe them:
 *
 * - **request received**: the fake records each request (`requests.push`)
 *   as soon as it has read and parsed the body, before it answers; the
 *   bench wraps that array's `push` and stamps model requests
 *   (`POST /v1/messages`, `POST /v1/chat/completions`);
 * - **response end**: each reply's frames (chunks) are handed to the fake
 *   as an array whose iterator stamps the moment the fake takes the last
 *   frame to write it (the fake writes it at once, then closes the stream;
 *   no byte of it can reach the client earlier, so no turn gap is
 *   understated). Replies are written with no gap between frames.
 *
 * If a fake stops iterating its replies this way, the stamps are missing and
 * the bench fails saying so, instead of printing wrong figures.
 *
 * @module
 */
import {
  type FakeAnthropic,
  startFakeAnthropic,
  textReply,
  toolReply,
} from "./_fake_anthropic.ts";
import {
  chatChunk,
  chatSse,
  type FakeOpenAI,
  startFakeOpenAI,
} from "./_fake_openai.ts";

/** The providers the bench runs against. */
export const PROVIDERS = ["anthropic", "openai"] as const;

/** One of {@linkcode PROVIDERS}. */
export type Provider = typeof PROVIDERS[number];

/** When one run's model requests arrived and its responses ended. */
export interface ModelTimeline {
  /** Arrival of each model request (body read), `performance.now()` ms. */
  requests: number[];
  /** End of each model response (its last frame written), same clock. */
  responseEnds: number[];
}

/** A scripted, timestamped fake model server. */
export interface BenchModel extends AsyncDisposable {
  /** Which provider plugin talks to it. */
  readonly provider: Provider;
  /** The `required_providers` entry of the plugin. */
  readonly required: string;
  /** The `provider` block (base URL on loopback). */
  readonly block: string;
  /** The provider name and model id for the profile. */
  readonly model: { provider: string; id: string };
  /** Environment the CLI needs (the API key). */
  readonly env: Record<string, string>;
  /**
   * Queues one run's replies: `reads` turns that each call `read_file` on
   * `notes/<i>.md`, then a text answer, {@linkcode finalAnswer}.
   *
   * @returns The timeline that fills while the run talks to the fake.
   */
  script(reads: number): ModelTimeline;
}

/**
 * The answer the model gives after `reads` reads.
 *
 * @param reads How many notes were read.
 * @returns The final text.
 */
export function finalAnswer(reads: number): string {
  return `Read ${reads} notes; each says hello.`;
}

/** A copy of `items` whose iteration calls `onEnd` as it hands out the last item. */
function stamped<T>(items: readonly T[], onEnd: () => void): T[] {
  const copy = [...items];
  Object.defineProperty(copy, Symbol.iterator, {
    value: function* () {
      for (let i = 0; i < items.length; i++) {
        if (i === items.length - 1) onEnd();
        yield items[i]!;
      }
    },
  });
  return copy;
}

/** Stamps model requests as the fake records them. */
function hookRequests<R extends { path: string }>(
  requests: R[],
  path: string,
  current: () => ModelTimeline | undefined,
): void {
  const push = requests.push;
  requests.push = (...items: R[]): number => {
    const t = performance.now();
    for (const r of items) if (r.path === path) current()?.requests.push(t);
    // Keep nothing between runs: the bench only needs the stamps.
    requests.length = 0;
    return push.apply(requests, items);
  };
}

const ANTHROPIC_MODEL = "claude-sonnet-5-5";
const OPENAI_MODEL = "gpt-5.4-mini";

function anthropic(): BenchModel {
  const fake: FakeAnthropic = startFakeAnthropic();
  let current: ModelTimeline | undefined;
  hookRequests(fake.requests, "/v1/messages", () => current);
  const end = () => current?.responseEnds.push(performance.now());
  return {
    provider: "anthropic",
    required: `claude = { source = "builtin/anthropic", version = "~> 0.1" }`,
    block: `provider "claude" {
  api_key   = env("ANTHROPIC_API_KEY")
  base_url  = "${fake.url}"
  allow_net = ["127.0.0.1"]
}
`,
    model: { provider: "claude", id: ANTHROPIC_MODEL },
    env: { ANTHROPIC_API_KEY: "sk-ant-api03-BENCH-KEY-00112233445566" },
    script(reads) {
      current = { requests: [], responseEnds: [] };
      for (let i = 0; i < reads; i++) {
        fake.enqueue({
          kind: "sse",
          frames: stamped(
            toolReply([{
              id: `toolu_bench_${i}`,
              name: "read_file",
              input: { path: `notes/${i}.md` },
            }], {
              text: `Reading note ${i}.`,
              model: ANTHROPIC_MODEL,
              usage: { input: 1_000 + 50 * i, output: 20 },
            }),
            end,
          ),
        });
      }
      fake.enqueue({
        kind: "sse",
        frames: stamped(
          textReply(
            [finalAnswer(reads)],
            { input: 1_000 + 50 * reads, output: 12 },
            ANTHROPIC_MODEL,
          ),
          end,
        ),
      });
      return current;
    },
    [Symbol.asyncDispose]: () => fake.close(),
  };
}

function openai(): BenchModel {
  const fake: FakeOpenAI = startFakeOpenAI();
  let current: ModelTimeline | undefined;
  hookRequests(fake.requests, "/v1/chat/completions", () => current);
  const end = () => current?.responseEnds.push(performance.now());
  const usage = (input: number, output: number) =>
    chatChunk(null, {
      usage: {
        prompt_tokens: input,
        completion_tokens: output,
        total_tokens: input + output,
      },
    });
  return {
    provider: "openai",
    required: `openai = { source = "builtin/openai", version = "~> 0.1" }`,
    block: `provider "openai" {
  api_key   = env("FAKE_OPENAI_KEY")
  base_url  = "${fake.baseUrl}"
  api       = "chat"
  models    = ["${OPENAI_MODEL}"]
  allow_net = ["127.0.0.1"]
}
`,
    model: { provider: "openai", id: OPENAI_MODEL },
    env: { FAKE_OPENAI_KEY: "sk-bench-0123456789abcdefSECRET" },
    script(reads) {
      current = { requests: [], responseEnds: [] };
      for (let i = 0; i < reads; i++) {
        fake.reply({
          gapMs: 0,
          chunks: stamped(
            chatSse([
              chatChunk({ role: "assistant", content: `Reading note ${i}.` }),
              chatChunk({
                tool_calls: [{
                  index: 0,
                  id: `call_bench_${i}`,
                  type: "function",
                  function: {
                    name: "read_file",
                    arguments: JSON.stringify({ path: `notes/${i}.md` }),
                  },
                }],
              }),
              chatChunk({}, { finish_reason: "tool_calls" }),
              usage(1_000 + 50 * i, 20),
            ]),
            end,
          ),
        });
      }
      fake.reply({
        gapMs: 0,
        chunks: stamped(
          chatSse([
            chatChunk({ role: "assistant", content: finalAnswer(reads) }),
            chatChunk({}, { finish_reason: "stop" }),
            usage(1_000 + 50 * reads, 12),
          ]),
          end,
        ),
      });
      return current;
    },
    [Symbol.asyncDispose]: () => fake.close(),
  };
}

/**
 * Starts the fake model server of a provider on 127.0.0.1 (port 0).
 *
 * @param provider Which one.
 * @returns The server; dispose of it to stop it.
 */
export function startBenchModel(provider: Provider): BenchModel {
  return provider === "anthropic" ? anthropic() : openai();
}
