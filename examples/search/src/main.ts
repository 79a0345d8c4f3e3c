import { greet } from "./greet.ts";

// TODO: read the name from the command line
console.log(greet("world"));
