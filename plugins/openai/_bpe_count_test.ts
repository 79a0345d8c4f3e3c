import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  CL100K_TOKEN_SPLIT_REGEX,
  O200K_TOKEN_SPLIT_REGEX,
} from "gpt-tokenizer/encodingParams/constants";
import {
  ContentBlockSchema,
  ContextSectionSchema,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolDeclarationSchema } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { BpeCounter, cl100kAsciiPiece, o200kAsciiPiece } from "./_bpe_count.ts";
import { chatMessagesOf, countRequestTokens } from "./tokens.ts";
import { jsonSchemaOf } from "./translate.ts";

/** gpt-tokenizer's count with special-token text counted as plain text. */
type Reference = (text: string) => number;

interface Encoding {
  name: string;
  mine: BpeCounter;
  reference: Reference;
}

async function encoding(
  name: "o200k_base" | "cl100k_base",
  memoSize?: number,
): Promise<Encoding> {
  const [ranks, api] = name === "o200k_base"
    ? await Promise.all([
      import("gpt-tokenizer/bpeRanks/o200k_base"),
      import("gpt-tokenizer/encoding/o200k_base"),
    ])
    : await Promise.all([
      import("gpt-tokenizer/bpeRanks/cl100k_base"),
      import("gpt-tokenizer/encoding/cl100k_base"),
    ]);
  const split = name === "o200k_base"
    ? O200K_TOKEN_SPLIT_REGEX
    : CL100K_TOKEN_SPLIT_REGEX;
  const noSpecial = { disallowedSpecial: new Set<string>() };
  return {
    name,
    mine: new BpeCounter(ranks.default, split, {
      ...(memoSize === undefined ? {} : { memoSize }),
      asciiPiece: name === "o200k_base" ? o200kAsciiPiece : cl100kAsciiPiece,
    }),
    reference: (text) => api.countTokens(text, noSpecial),
  };
}

/** A seeded generator (mulberry32): the same strings on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SAMPLES: Record<string, string> = {
  prose:
    "It's the user's call; they'd've said so. We'll see, won't we? I'M SURE THEY'LL AGREE. Don't panic.\n\n",
  code:
    'export function f(x: number): string {\n\treturn `${x}`.padStart(4, "0"); // ok\r\n}\n',
  json: JSON.stringify(
    {
      a: [1, 22, 333, 4444, -5.5e10],
      "key with spaces": { nested: null, ok: true, s: "\u00e9\u00e8" },
    },
    null,
    2,
  ),
  chinese: "机器学习是人工智能的一个分支。它使计算机能够从数据中学习。",
  japanese: "東京都は日本の首都です。ひらがなとカタカナ、漢字を使います。",
  korean: "안녕하세요, 세계! 한국어 텍스트입니다.",
  arabic: "مرحبا بالعالم، هذه جملة عربية مع تشكيل: كَتَبَ الوَلَدُ الدَّرْسَ.",
  hindi: "नमस्ते दुनिया। यह हिंदी में एक वाक्य है।",
  thai: "สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่างระหว่างคำ",
  russian: "Привет, мир! Съешь же ещё этих мягких французских булок.",
  greek: "Γειά σου Κόσμε· ΑΒΓΔ αβγδ ǅungla ǈ",
  emoji: "👩‍👩‍👧‍👦 👍🏽 🇫🇷🇯🇵 ❤️‍🔥 🧑🏿‍💻 a😀b 1️⃣ #️⃣ \u{1F600}\u{1F601}",
  marks: "e\u0301 a\u0300\u0316 \u0301\u0302x Z\u0351\u0362\u0349a\u0308lgo",
  numbers: "1234567890 12.5 ١٢٣٤ ⅫⅩ ½ 3rd 2ⁿ ①②",
  special:
    "<|endoftext|> <|im_start|>user<|im_sep|>hi<|im_end|><|fim_prefix|><|endofprompt|>",
  whitespace: " \t\n\r\n\u00a0\u2003\u3000\ufeff\v\f x  \n\n  y\t\t\n",
  surrogates: "a\ud800b\udc00c \ud83d \ude00\ud83d\ude00\udbff",
  controls: "\0\x01\x07\x1b[31mred\x1b[0m\x7f\u0085\u2028\u2029",
};

function bigWhitespace(): string[] {
  return [
    " ".repeat(3000),
    " ".repeat(2999) + "x",
    "\t".repeat(500) + "\n".repeat(300) + " ".repeat(77),
    "\r\n".repeat(400),
    "a" + " ".repeat(1000) + "b" + "\u00a0".repeat(400) + "c",
  ];
}

function randomBytesText(rand: () => number, length: number): string {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(rand() * 256);
  return new TextDecoder().decode(bytes);
}

// Code points drawn from ranges chosen to hit every class the split regexes
// tell apart: ASCII, Latin-1, combining marks, CJK, Hangul, Arabic,
// Devanagari, letter-like numbers, spaces, emoji, lone surrogates.
const RANGES: [number, number][] = [
  [0x20, 0x7e],
  [0x20, 0x7e],
  [0x20, 0x7e],
  [0x09, 0x0d],
  [0x80, 0xff],
  [0x300, 0x36f],
  [0x370, 0x3ff],
  [0x400, 0x4ff],
  [0x600, 0x6ff],
  [0x900, 0x97f],
  [0x2000, 0x206f],
  [0x2150, 0x218f],
  [0x3000, 0x30ff],
  [0x4e00, 0x4fff],
  [0xac00, 0xacff],
  [0xd800, 0xdfff],
  [0x1f300, 0x1f6ff],
  [0x1f3fb, 0x1f3ff],
];
const ALPHABET = " '\n\r\tsStTdDmMlLvVeErR0123456789/.,_-(){}<>|";

function randomText(rand: () => number, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    const pick = rand();
    if (pick < 0.45) {
      out += ALPHABET[Math.floor(rand() * ALPHABET.length)];
    } else {
      const [lo, hi] = RANGES[Math.floor(rand() * RANGES.length)]!;
      out += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
    }
  }
  return out;
}

async function repositoryText(): Promise<string> {
  const files = [
    "../../README.md",
    "./provider.ts",
    "./models.json",
    "../../kernel/agent/session.ts",
    "../../config/compile.ts",
  ];
  const texts = await Promise.all(
    files.map((f) => Deno.readTextFile(new URL(f, import.meta.url))),
  );
  return texts.join("\n");
}

/**
 * Words of 1 to 14 letters, with and without a leading space, some with
 * two-byte letters: pieces of up to 8 bytes are hashed and compared as two
 * packed words, and merge candidates of up to 8 bytes are joined from
 * their parts' words, so parts of 1 to 7 bytes join on either side of that
 * boundary.
 */
function packingWords(): string[] {
  const rand = random(808);
  const letters = "etaoinshrdlucmfwypvbgkqjxz" + "ETAOIN" + "éèöüßçñ";
  const words: string[] = [];
  for (let length = 1; length <= 14; length++) {
    for (let i = 0; i < 60; i++) {
      let word = rand() < 0.5 ? " " : "";
      for (let j = 0; j < length; j++) {
        word += rand() < 0.1
          ? letters[32 + Math.floor(rand() * 7)]
          : letters[Math.floor(rand() * (j === 0 ? 32 : 26))];
      }
      words.push(word);
    }
  }
  return words;
}

/**
 * Pieces of 20 to 450 bytes: rules of dashes and equals signs (with the
 * leading space and trailing newlines the split regexes keep), runs of
 * spaces, tabs and newlines, long words in Latin, CJK and Cyrillic letters,
 * long runs of punctuation.
 */
function longPieces(rand: () => number): string[] {
  const out: string[] = [];
  for (let length = 20; length <= 140; length += 3) {
    out.push(" " + "-".repeat(length) + "\n\n");
    out.push("=".repeat(length + 7));
    out.push(" ".repeat(length) + "x");
    out.push("\t".repeat(length >> 2) + "\n".repeat(length >> 3));
  }
  out.push(" " + "-".repeat(447), " ".repeat(440), "|-".repeat(150));
  // Longer than the merge arrays a counter keeps, then short again.
  out.push(" " + "-".repeat(9000), "-".repeat(30));
  const pick = (alphabet: string, length: number) =>
    Array.from(
      { length },
      () => alphabet[Math.floor(rand() * alphabet.length)],
    ).join("");
  for (let i = 0; i < 60; i++) {
    const length = 20 + Math.floor(rand() * 100);
    out.push(pick("etaoinshrdlu", length));
    out.push(" " + pick("abcdefghijklmnopqrstuvwxyz", length));
    out.push(pick("机器学习人工智能数据", length >> 1));
    out.push(pick("абвгдеёжзийклмн", length));
    out.push(pick("-=*#~_.", length));
  }
  return out;
}

/**
 * A text of about `size` characters mixing what a session holds: code,
 * prose, JSON, CJK, emoji, long digit runs, whitespace runs, lone
 * surrogates, and random characters of every class.
 */
function variedCorpus(rand: () => number, size: number): string {
  const samples = Object.values(SAMPLES);
  let out = "";
  while (out.length < size) {
    const pick = rand();
    if (pick < 0.5) out += samples[Math.floor(rand() * samples.length)];
    else if (pick < 0.6) {
      out += String(Math.floor(rand() * 1e15)).repeat(
        1 + Math.floor(rand() * 5),
      );
    } else if (pick < 0.7) {
      out += " \t\n\r\u00a0".charAt(Math.floor(rand() * 5)).repeat(
        1 + Math.floor(rand() * 40),
      );
    } else if (pick < 0.75) out += longPieces(rand)[Math.floor(rand() * 50)];
    else out += randomText(rand, 1 + Math.floor(rand() * 200));
  }
  return out;
}

Deno.test("BpeCounter counts text exactly as gpt-tokenizer does", async (t) => {
  const repo = await repositoryText();
  const rand = random(17);
  const bytes = Array.from(
    { length: 8 },
    (_, i) => randomBytesText(rand, 64 << i),
  );
  for (const name of ["o200k_base", "cl100k_base"] as const) {
    const enc = await encoding(name);
    await t.step(`${name}: samples of each kind of text`, () => {
      for (const [kind, text] of Object.entries(SAMPLES)) {
        assert.equal(enc.mine.count(text), enc.reference(text), kind);
        // Repeated, so that the second half is answered by the memo.
        const twice = text + text;
        assert.equal(enc.mine.count(twice), enc.reference(twice), kind);
      }
      for (const text of bigWhitespace()) {
        assert.equal(enc.mine.count(text), enc.reference(text));
      }
      for (const text of bytes) {
        assert.equal(enc.mine.count(text), enc.reference(text));
      }
    });
    await t.step(`${name}: words around the 8 packed bytes`, () => {
      const words = packingWords();
      for (const word of words) {
        assert.equal(enc.mine.count(word), enc.reference(word), word);
      }
      const text = words.join("");
      assert.equal(enc.mine.count(text), enc.reference(text));
    });
    await t.step(`${name}: this repository's sources and README`, () => {
      for (let at = 0; at < repo.length; at += 50_000) {
        const text = repo.slice(at, at + 50_000);
        assert.equal(enc.mine.count(text), enc.reference(text));
      }
    });
    await t.step(`${name}: long pieces, merged by the heap`, () => {
      // Pieces of more than 24 bytes are merged with a heap, others by
      // scans: both sides of that length, and runs whose pairs all have
      // the same rank (the leftmost must win).
      const rand = random(name.length * 31);
      for (const text of longPieces(rand)) {
        assert.equal(
          enc.mine.count(text),
          enc.reference(text),
          JSON.stringify(text.slice(0, 40)) + ` (${text.length})`,
        );
      }
    });
    await t.step(`${name}: a varied corpus of 100 KB`, () => {
      const text = variedCorpus(random(name.length * 101), 100_000);
      assert.equal(enc.mine.count(text), enc.reference(text));
      const part = text.slice(33_333, 66_666);
      assert.equal(enc.mine.count(part), enc.reference(part));
    });
    await t.step(
      `${name}: a text of over 1 MB in UTF-8, then a small one`,
      () => {
        // The counter lets go of a UTF-8 buffer of over 1 MB after the count;
        // the next count makes a new one.
        const text = "a b\u00e9 ".repeat(80_000);
        assert.equal(enc.mine.count(text), enc.reference(text));
        assert.equal(
          enc.mine.count(SAMPLES.code!),
          enc.reference(SAMPLES.code!),
        );
      },
    );
    await t.step(`${name}: lone surrogates beside U+FFFD`, () => {
      // A lone surrogate is U+FFFD in the UTF-8 the counter cuts, yet such
      // a piece is never one token; a memo keyed by bytes must not mix the
      // two.
      for (
        const text of [
          "\ufffd \ud800 \ufffd\ufffd \ud800\ud800 \udc00\ufffd",
          "\ud800\ud800 \ufffd\ufffd \ud800 \ufffd",
          "x\ud83d\ude00\ud83d y\ude00\ud83d\ude00 \ud83d\ud83d\ude00\ude00",
          "abc\udfffdef \ud800'll \ud800123 \ud800\n\n \ud800 ",
        ]
      ) {
        enc.mine.clearMemo();
        assert.equal(enc.mine.count(text), enc.reference(text), text);
        assert.equal(enc.mine.count(text), enc.reference(text), text);
      }
    });
    await t.step(`${name}: 1500 seeded random strings`, () => {
      const rand = random(name.length * 7919);
      for (let i = 0; i < 1500; i++) {
        const text = randomText(rand, 1 + Math.floor(rand() * 80));
        assert.equal(
          enc.mine.count(text),
          enc.reference(text),
          JSON.stringify(text),
        );
      }
    });
  }
});

for (
  const [name, scanner, split] of [
    ["o200kAsciiPiece", o200kAsciiPiece, O200K_TOKEN_SPLIT_REGEX],
    ["cl100kAsciiPiece", cl100kAsciiPiece, CL100K_TOKEN_SPLIT_REGEX],
  ] as const
) {
  Deno.test(`${name}() ends each piece where its regex does`, () => {
    scansAsTheRegex(scanner, split);
  });
}

function scansAsTheRegex(
  scanner: (bytes: Uint8Array, start: number, end: number) => number,
  split: RegExp,
): void {
  const sticky = new RegExp(split.source, "uy");
  const rand = random(4242);
  // Every ASCII character, weighted to the ones the regex tells apart, and
  // a few others where the scanner must leave the decision to the regex.
  const pool = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c))
    .join("") + "  \t\n\r\r\n'''sSdDtTlLvVeErRmM09aZ/.-  ";
  const others = "é\u00a0\u0301ǅ١😀\u3000";
  let decided = 0;
  for (let i = 0; i < 10_000; i++) {
    let text = "";
    const length = 1 + Math.floor(rand() * 40);
    for (let j = 0; j < length; j++) {
      text += rand() < 0.05
        ? others.charAt(Math.floor(rand() * others.length))
        : pool.charAt(Math.floor(rand() * pool.length));
    }
    // The scanner reads the UTF-8 bytes: byteAt[i] is where character i
    // starts in them.
    const bytes = new TextEncoder().encode(text);
    const byteAt = [0];
    for (const c of text) {
      const last = byteAt[byteAt.length - 1]!;
      const size = new TextEncoder().encode(c).length;
      if (c.length === 2) byteAt.push(last + size / 2);
      byteAt.push(last + size);
    }
    for (let at = 0; at < text.length; at++) {
      const end = scanner(bytes, byteAt[at]!, bytes.length);
      if (end < 0) continue;
      decided++;
      sticky.lastIndex = at;
      assert.ok(sticky.test(text));
      assert.equal(
        end,
        byteAt[sticky.lastIndex],
        `${JSON.stringify(text)} at ${at}`,
      );
    }
  }
  assert.ok(decided > 100_000, `only ${decided} pieces decided`);
}

Deno.test("BpeCounter refuses a split regex without the u or v flag", async () => {
  const ranks = await import("gpt-tokenizer/bpeRanks/o200k_base");
  assert.throws(
    () => new BpeCounter(ranks.default, /\w+|\s+/g),
    (e: unknown) =>
      e instanceof TypeError && /\/\\w\+\|\\s\+\/g/.test(e.message) &&
      /u or v flag/.test(e.message),
  );
});

Deno.test("BpeCounter gives the same counts when its memo keeps few pieces", async () => {
  const enc = await encoding("o200k_base", 4);
  const text = Object.values(SAMPLES).join("") + (await repositoryText())
    .slice(0, 20_000);
  const expected = enc.reference(text);
  assert.equal(enc.mine.count(text), expected);
  assert.equal(enc.mine.count(text), expected);
});

Deno.test("countRequestTokens() equals gpt-tokenizer's chat count for o200k", async () => {
  const { countChatCompletionTokens } = await import(
    "gpt-tokenizer/model/gpt-5.4"
  );
  const text = (s: string) =>
    create(ContentBlockSchema, { block: { case: "text", value: { text: s } } });
  const input = {
    assembledContext: [
      create(ContextSectionSchema, {
        provider: "system",
        label: "rules",
        content: [text("You are terse. 日本語も話す。")],
      }),
    ],
    messages: [
      create(MessageSchema, {
        role: Role.USER,
        content: [text(SAMPLES.special!), text(SAMPLES.emoji!)],
      }),
      create(MessageSchema, {
        role: Role.ASSISTANT,
        content: [
          text("Reading it."),
          create(ContentBlockSchema, {
            block: {
              case: "toolUse",
              value: {
                id: "c1",
                name: "read_file",
                arguments: { path: "a b.txt" },
              },
            },
          }),
        ],
      }),
      create(MessageSchema, {
        role: Role.USER,
        content: [create(ContentBlockSchema, {
          block: {
            case: "toolResult",
            value: { toolUseId: "c1", content: [text(SAMPLES.code!)] },
          },
        })],
      }),
    ],
    tools: [create(ToolDeclarationSchema, {
      name: "read_file",
      description: "Reads a file",
      inputSchema: create(SchemaSchema, {
        type: SchemaType.OBJECT,
        properties: {
          path: create(SchemaSchema, {
            type: SchemaType.STRING,
            description: "The path",
          }),
        },
        required: ["path"],
      }),
    })],
  };
  const functions = input.tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: jsonSchemaOf(t.inputSchema),
  }));
  const expected = countChatCompletionTokens!({
    messages: chatMessagesOf(input),
    functions: functions as never,
  });
  assert.equal(await countRequestTokens(input), expected);
  assert.equal(
    await countRequestTokens({ ...input, tools: [] }),
    countChatCompletionTokens!({ messages: chatMessagesOf(input) }),
  );
});
