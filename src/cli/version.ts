/**
 * The version of the `toolwire` command (and of the client it connects with), in a module of its own so
 * that `toolwire --version` loads nothing else.
 * @module
 */
export const VERSION = '0.1.0';
