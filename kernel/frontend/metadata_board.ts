/**
 * The metadata surface: typed, keyed blocks per session (plugins.md §4.6).
 * A publish upserts by `(session, id)`, stamps the server-derived producer
 * and `LIVE`; a retract, or the publisher's exit, flips the block to
 * `DISCONNECTED`. Nothing is ever deleted. Every change is republished on
 * `kernel.metadata` as a `BusEvent` whose payload is the block.
 *
 * @module
 */
import { clone, toBinary } from "@bufbuild/protobuf";
import {
  Liveness,
  type MetadataBlock,
  MetadataBlockSchema,
  Tone,
} from "../../proto/gen/pluggableharness/metadata/v1/types_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { producerRefOfIdentity } from "../agent/_proto.ts";
import type { EventBus } from "../bus/event_bus.ts";
import {
  Code,
  frontendError,
  FrontendErrorCategory,
  invalidRequest,
} from "../callback/frontend_surface.ts";

/** The bus topic of metadata changes. */
export const METADATA_TOPIC = "kernel.metadata";

function sameProducer(block: MetadataBlock, who: PluginIdentity): boolean {
  return block.producer?.name === who.name &&
    producerRefOfIdentity(who).category === block.producer.category;
}

/** Every session's metadata blocks. */
export class MetadataBoard {
  readonly #sessions = new Map<string, Map<string, MetadataBlock>>();
  readonly #bus: EventBus | undefined;

  /**
   * Creates an empty board.
   *
   * @param bus Where changes are republished.
   */
  constructor(bus?: EventBus) {
    this.#bus = bus;
  }

  /**
   * Upserts a block (PublishMetadata).
   *
   * @param sessionId The session.
   * @param publisher The caller's identity (overwrites `producer`).
   * @param block The block as sent.
   * @returns The block as stored.
   * @throws {GrpcStatusError} `INVALID_ARGUMENT` for a missing id, body or tone, or another session's id.
   */
  publish(
    sessionId: string,
    publisher: PluginIdentity,
    block: MetadataBlock | undefined,
  ): MetadataBlock {
    if (!block) throw invalidRequest("PublishMetadata needs block");
    if (!block.id) throw invalidRequest("block.id is required");
    if (block.body.case === undefined) {
      throw invalidRequest(
        `block "${block.id}" has no body: set one of key_value, progress, status, item_list, timer`,
      );
    }
    if (block.tone === Tone.UNSPECIFIED || Tone[block.tone] === undefined) {
      throw invalidRequest(
        `block "${block.id}" needs tone: NEUTRAL, INFO, SUCCESS, WARNING or DANGER`,
      );
    }
    if (block.sessionId && block.sessionId !== sessionId) {
      throw invalidRequest(
        `block "${block.id}" names session "${block.sessionId}", but the request names "${sessionId}"`,
      );
    }
    let blocks = this.#sessions.get(sessionId);
    if (!blocks) this.#sessions.set(sessionId, blocks = new Map());
    const stored = clone(MetadataBlockSchema, block);
    stored.producer = producerRefOfIdentity(publisher);
    stored.liveness = Liveness.LIVE;
    stored.sessionId = sessionId;
    blocks.set(stored.id, stored);
    this.#republish(stored);
    return stored;
  }

  /**
   * Flips a block to `DISCONNECTED` (RetractMetadata).
   *
   * @param sessionId The session.
   * @param retractor The caller; only the block's publisher may retract it.
   * @param blockId The block.
   * @returns The block as stored.
   * @throws {GrpcStatusError} `NOT_FOUND` for an unknown block, `PERMISSION_DENIED` for another publisher's.
   */
  retract(
    sessionId: string,
    retractor: PluginIdentity,
    blockId: string,
  ): MetadataBlock {
    if (!blockId) throw invalidRequest("block_id is required");
    const block = this.#sessions.get(sessionId)?.get(blockId);
    if (!block) {
      throw frontendError(
        Code.NOT_FOUND,
        FrontendErrorCategory.INVALID_REQUEST,
        `No metadata block "${blockId}" in session "${sessionId}"`,
      );
    }
    if (!sameProducer(block, retractor)) {
      throw frontendError(
        Code.PERMISSION_DENIED,
        FrontendErrorCategory.INVALID_REQUEST,
        `Cannot retract metadata block "${blockId}": another plugin published it`,
      );
    }
    if (block.liveness !== Liveness.DISCONNECTED) {
      block.liveness = Liveness.DISCONNECTED;
      this.#republish(block);
    }
    return block;
  }

  /**
   * The session's blocks in stable id order (ListMetadata).
   *
   * @param sessionId The session.
   * @returns The blocks (may be empty).
   */
  list(sessionId: string): MetadataBlock[] {
    const blocks = this.#sessions.get(sessionId);
    if (!blocks) return [];
    return [...blocks.values()].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0
    );
  }

  /**
   * The publisher exited: its live blocks turn `DISCONNECTED`, each
   * republished.
   *
   * @param publisher The plugin.
   */
  publisherExited(publisher: PluginIdentity): void {
    for (const blocks of this.#sessions.values()) {
      for (const b of blocks.values()) {
        if (b.liveness === Liveness.LIVE && sameProducer(b, publisher)) {
          b.liveness = Liveness.DISCONNECTED;
          this.#republish(b);
        }
      }
    }
  }

  #republish(block: MetadataBlock): void {
    this.#bus?.publishKernel(METADATA_TOPIC, {
      payload: toBinary(MetadataBlockSchema, block),
      payloadType: MetadataBlockSchema.typeName,
      schemaVersion: "1",
      sessionId: block.sessionId,
    });
  }
}
