// A fixture plugin whose config schema breaks the rules of config.md §2.3.
if (import.meta.main) console.log("badschema fixture plugin");
