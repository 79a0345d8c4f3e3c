// A fixture plugin: only its manifest and bytes matter to the compiler.
import { describe } from "./describe.ts";

if (import.meta.main) console.log(describe());
