import { runSessionStoreContract } from "../../tests/contract/session_store.ts";
import { MemorySessionStore } from "./memory_session_store.ts";

runSessionStoreContract("MemorySessionStore", (bus, extras) =>
  Promise.resolve({
    store: new MemorySessionStore({ bus, ...extras }),
    cleanup: () => Promise.resolve(),
  }));
