/**
 * The identity of a launched plugin build, fixed at launch and bound to its
 * callback connection.
 *
 * @module
 */
import type { CategoryName } from "./manifest.ts";

/** `{category, name, version}` plus where the build came from. */
export interface PluginIdentity {
  /** The plugin's category. */
  category: CategoryName;
  /** Unique within the category. */
  name: string;
  /** Exact semantic version. */
  version: string;
  /** Install address, e.g. `builtin:echo`. */
  source: string;
}
