/**
 * Logs a relayed line at a LogTape level, with the text as a property so
 * that braces inside it are never read as placeholders.
 *
 * @module
 */
import type { Logger, LogLevel } from "@logtape/logtape";

/**
 * Logs `message` at `level` on `logger`.
 *
 * @param logger The LogTape logger.
 * @param level The level.
 * @param message The text, verbatim.
 * @param props Structured properties.
 */
export function logAt(
  logger: Logger,
  level: LogLevel,
  message: string,
  props: Record<string, unknown> = {},
): void {
  const p = { ...props, message };
  switch (level) {
    case "trace":
      return logger.trace("{message}", p);
    case "debug":
      return logger.debug("{message}", p);
    case "info":
      return logger.info("{message}", p);
    case "warning":
      return logger.warn("{message}", p);
    case "error":
      return logger.error("{message}", p);
    case "fatal":
      return logger.fatal("{message}", p);
  }
}
