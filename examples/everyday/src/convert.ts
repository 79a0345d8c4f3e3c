/** Conversions between Celsius (the unit used inside) and Fahrenheit. */

/**
 * Converts Celsius to Fahrenheit.
 *
 * @param celsius The temperature in degrees Celsius.
 * @returns The temperature in degrees Fahrenheit.
 */
export function toFahrenheit(celsius: number): number {
  // TODO: round as the wiki says
  return celsius * 9 / 5 + 32;
}

/**
 * Converts Fahrenheit to Celsius.
 *
 * @param fahrenheit The temperature in degrees Fahrenheit.
 * @returns The temperature in degrees Celsius.
 */
export function toCelsius(fahrenheit: number): number {
  return (fahrenheit - 32) * 5 / 9;
}
