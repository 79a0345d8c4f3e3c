import { runSessionStoreContract } from "../../tests/contract/session_store.ts";
import { MemorySessionStore } from "./memory_session_store.ts";

runSessionStoreContract("MemorySessionStore", (bus) =>
  Promise.resolve({
    store: new MemorySessionStore({ bus }),
    cleanup: () => Promise.resolve(),
  }));
