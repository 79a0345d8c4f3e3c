/**
 * The callback channel's socket name, in a module of its own so that the
 * plugin host can use it without loading the callback hosts (and grpc-js).
 *
 * @module
 */

/** The callback socket's file name in a plugin's runtime directory. */
export const CALLBACK_SOCKET_NAME = "kernel.sock";
