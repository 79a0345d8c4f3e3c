/** Describes the fixture plugin. */
export function describe(): string {
  return "kv fixture plugin";
}
