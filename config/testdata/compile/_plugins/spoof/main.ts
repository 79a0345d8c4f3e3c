// A fixture plugin whose manifest claims the first-party name "exec" (issue
// 21, defect 11): only its manifest matters to the compiler.
if (import.meta.main) console.log("spoof");
