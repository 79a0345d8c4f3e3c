/**
 * The wire form of a manifest's `config_schema`, for a plugin's
 * `GetCapabilities`/`GetSchema` answer.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ConfigAttributeSchema,
  ConfigSchemaSchema,
} from "../../proto/gen/pluggableharness/config/v1/types_pb.ts";
import {
  CONFIG_ATTR_TYPES,
  type ConfigAttributeSpec,
  type PluginManifest,
} from "../../contract/manifest.ts";

function attribute(
  a: ConfigAttributeSpec,
): MessageInitShape<typeof ConfigAttributeSchema> {
  return {
    name: a.name,
    // config.v1.AttrType numbers the types in CONFIG_ATTR_TYPES order from 1.
    type: CONFIG_ATTR_TYPES.indexOf(a.type) + 1,
    required: a.required,
    sensitive: a.sensitive,
    description: a.description,
    objectAttributes: a.objectAttributes.map(attribute),
    ...(a.defaultJson !== undefined ? { defaultJson: a.defaultJson } : {}),
  };
}

/**
 * Converts the manifest's config schema (nested attributes included) to
 * `pluggableharness.config.v1.ConfigSchema`, so that a plugin advertises
 * exactly what its manifest declares.
 *
 * @param manifest The plugin's manifest.
 * @returns The schema message (empty when the manifest declares none).
 */
export function configSchemaOf(
  manifest: Pick<PluginManifest, "configSchema">,
): MessageInitShape<typeof ConfigSchemaSchema> {
  return { attributes: (manifest.configSchema ?? []).map(attribute) };
}
