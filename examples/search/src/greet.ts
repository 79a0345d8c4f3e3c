/** Greets someone. */
export function greet(name: string): string {
  // TODO: trim the name
  return `Hello, ${name}!`;
}
