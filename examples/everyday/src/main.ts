/** Prints a Celsius temperature given on the command line in Fahrenheit. */
import { toFahrenheit } from "./convert.ts";

const celsius = Number(Deno.args[0] ?? "21.3");
console.log(`${celsius} °C = ${toFahrenheit(celsius)} °F`);
