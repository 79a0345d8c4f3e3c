import { runSessionStoreContract } from "../../tests/contract/session_store.ts";
import {
  freshSchema,
  PG_IGNORE,
  sharedCluster,
  stopSharedCluster,
} from "../../tests/_postgres.ts";
import { PostgresSessionStore } from "./postgres_session_store.ts";
import { installationKeyFromBytes } from "./installation_key.ts";

const KEY = installationKeyFromBytes(new Uint8Array(32).fill(7));

if (!PG_IGNORE) {
  runSessionStoreContract("PostgresSessionStore", async (bus, extras) => {
    const cluster = await sharedCluster();
    return {
      store: new PostgresSessionStore({
        url: cluster.url,
        schema: freshSchema(),
        key: KEY,
        bus,
        ...extras,
      }),
      cleanup: () => Promise.resolve(),
    };
  });
}

Deno.test({
  name: "PostgresSessionStore: (stops the test cluster)",
  ignore: PG_IGNORE,
  fn: stopSharedCluster,
});
