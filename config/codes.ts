/**
 * Stable diagnostic codes of the config compiler (config.md §4.4), beside
 * those of the HCL front-end (`E_SYNTAX`, `E_INVALID_VALUE`,
 * `E_FUNCTION_NOT_ALLOWED`, `E_VARIABLE_NOT_ALLOWED`, `E_ENV_UNSET`,
 * `E_SECRET_SHAPE`) and of the policy and profile modules
 * (`E_POLICY_CONFLICT`, `W_POLICY_EMPTY_MATCH`, `W_POLICY_ALLOW_SHADOWS_DENY`,
 * `E_TOOL_SCOPE_MALFORMED`, `E_TOOL_UNKNOWN`, `E_UNKNOWN_PROVIDER`,
 * `W_BOUND_ZERO`, …).
 *
 * Codes starting with `E_` are errors and `W_` warnings. Tests and `--json`
 * consumers match on codes, never on wording.
 *
 * @module
 */

/** A block type the schema does not have (closed schemas). */
export const E_UNKNOWN_BLOCK = "E_UNKNOWN_BLOCK";
/** An attribute the schema does not have (closed schemas). */
export const E_UNKNOWN_ATTR = "E_UNKNOWN_ATTR";
/** A required attribute or block is missing. */
export const E_MISSING_ATTR = "E_MISSING_ATTR";
/** A required key of an object value is missing (`source`, `version`). */
export const E_MISSING_FIELD = "E_MISSING_FIELD";
/** A block that may appear once appears again, or a label repeats. */
export const E_DUPLICATE_BLOCK = "E_DUPLICATE_BLOCK";
/** A block has the wrong number of labels. */
export const E_BLOCK_LABELS = "E_BLOCK_LABELS";
/** A name that must be declared in `required_providers` is not. */
export const E_UNKNOWN_PROVIDER = "E_UNKNOWN_PROVIDER";
/** A provider `source` that is neither builtin, a path nor a forge address. */
export const E_INVALID_SOURCE = "E_INVALID_SOURCE";
/** A version constraint no version can satisfy. */
export const E_CONSTRAINT_UNSATISFIABLE = "E_CONSTRAINT_UNSATISFIABLE";
/** The version available locally does not satisfy the constraint. */
export const E_VERSION_MISMATCH = "E_VERSION_MISMATCH";
/** A plugin's manifest or module graph cannot be read. */
export const E_PLUGIN_UNAVAILABLE = "E_PLUGIN_UNAVAILABLE";
/**
 * A plugin's manifest `name` is another provider's local name, or a
 * first-party plugin's name while its source is not that builtin.
 */
export const E_PLUGIN_NAME_CONFLICT = "E_PLUGIN_NAME_CONFLICT";
/** A plugin advertises an invalid config schema (§2.3 rules 1–5). */
export const E_SCHEMA_INVALID = "E_SCHEMA_INVALID";
/** A plugin declares a permission the operator's grant does not cover. */
export const E_PERMISSION_NOT_GRANTED = "E_PERMISSION_NOT_GRANTED";
/** A grant entry that covers nothing the plugin declares. */
export const W_GRANT_UNUSED = "W_GRANT_UNUSED";
/** A provider of the wrong category where a category is required. */
export const E_PROVIDER_CATEGORY = "E_PROVIDER_CATEGORY";
/** A malformed `slash_commands` entry (`"p."`, `".cmd"`). */
export const E_SLASH_COMMAND_ENTRY = "E_SLASH_COMMAND_ENTRY";
/**
 * Two direct-invoke slash commands of one profile share a name, or a
 * listed command is not one its provider declares.
 */
export const E_SLASH_COMMAND_CONFLICT = "E_SLASH_COMMAND_CONFLICT";
/** `settings.default_frontend` names no declared provider. */
export const W_UNKNOWN_FRONTEND = "W_UNKNOWN_FRONTEND";
/** A hook point the plugin does not advertise (stage B). */
export const E_HOOK_POINT_UNSUPPORTED = "E_HOOK_POINT_UNSUPPORTED";
/** `agent.hcl` is missing. */
export const E_NO_CONFIG = "E_NO_CONFIG";
/** Another `*.hcl` file beside `agent.hcl`: it is not read. */
export const W_EXTRA_HCL = "W_EXTRA_HCL";
/**
 * A setting that is accepted but has no effect yet (`default_frontend`, a
 * profile's `slash_commands`, the global `registry_mirror`).
 */
export const W_NO_EFFECT = "W_NO_EFFECT";
/** A provider runs from a `dev_overrides` path: lock and constraint skipped. */
export const W_DEV_OVERRIDE = "W_DEV_OVERRIDE";

/** The lock file's `lock_file_version` is missing or not supported. */
export const E_LOCK_VERSION = "E_LOCK_VERSION";
/** There is no lock file and `--locked` was given. */
export const E_LOCK_MISSING = "E_LOCK_MISSING";
/** There is no lock file (without `--locked`). */
export const W_LOCK_MISSING = "W_LOCK_MISSING";
/** A required provider has no lock entry (always an error for forge sources). */
export const E_PROVIDER_NOT_LOCKED = "E_PROVIDER_NOT_LOCKED";
/** A required provider has no lock entry (without `--locked`). */
export const W_PROVIDER_NOT_LOCKED = "W_PROVIDER_NOT_LOCKED";
/** A lock entry no longer matches the configuration or the plugin. */
export const E_LOCK_OUTDATED = "E_LOCK_OUTDATED";
/** A lock entry no longer matches (without `--locked`). */
export const W_LOCK_OUTDATED = "W_LOCK_OUTDATED";
/** A lock entry for a provider the configuration no longer requires. */
export const W_LOCK_UNUSED = "W_LOCK_UNUSED";
/** No checksum is recorded for this platform. */
export const E_CHECKSUM_MISSING = "E_CHECKSUM_MISSING";
/** The plugin's artifact does not match its recorded checksum. */
export const E_CHECKSUM_MISMATCH = "E_CHECKSUM_MISMATCH";
/** The plugin declares permissions that were not approved when locked. */
export const E_ENVELOPE_GROWN = "E_ENVELOPE_GROWN";

/**
 * More problems were found than are reported: the last diagnostic of a
 * capped list, saying how many errors and warnings it leaves out. `E_` when
 * some of those are errors, else `W_`.
 */
export const E_TOO_MANY_DIAGNOSTICS = "E_TOO_MANY_DIAGNOSTICS";
/** As {@linkcode E_TOO_MANY_DIAGNOSTICS}, when only warnings are left out. */
export const W_TOO_MANY_DIAGNOSTICS = "W_TOO_MANY_DIAGNOSTICS";

/**
 * Codes that mean "the lock file is missing, outdated or does not match":
 * with only these errors, `check-config` exits with 2 rather than 1. Any
 * error located in the lock file itself also counts.
 */
export const LOCK_CODES: ReadonlySet<string> = new Set([
  E_LOCK_VERSION,
  E_LOCK_MISSING,
  E_PROVIDER_NOT_LOCKED,
  E_LOCK_OUTDATED,
  E_CHECKSUM_MISSING,
  E_CHECKSUM_MISMATCH,
  E_ENVELOPE_GROWN,
]);
