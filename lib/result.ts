/**
 * The one shape of an expected failure in lib/: a value, or an error, told apart by `ok`.
 * Throw for bugs and for failures nobody one step up can handle; return a `Result` when the
 * caller decides what the failure means (a 400 to render, an entry to fail over from).
 * A failure that carries more than its error extends `Err` (`UpstreamFailure` adds the retry
 * verdict). Wire formats (JSON sent to clients or vendors) keep their own shapes.
 * Imports nothing, so every layer may use it (docs/architecture.md).
 */
export type Ok<T> = { ok: true; value: T };
export type Err<E> = { ok: false; error: E };
export type Result<T, E> = Ok<T> | Err<E>;
