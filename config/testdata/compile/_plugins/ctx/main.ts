// A fixture context plugin.
if (import.meta.main) console.log("readme fixture plugin");
