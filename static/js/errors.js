// A refusal in words: the server's errors carry a stable code (wizard/protocol/errors.py
// `ErrorCode`, and the HTTP API's `error` field); the catalog has a message per code, so a
// player reads it in their language. Only a code the catalog does not know shows the
// server's own text.

import {has, t} from "./i18n.js";

/** `err`: {code, message} (a RequestError, an HttpError or an `error` message). */
export function errorText(err) {
  const code = err && err.code;
  if (code && has(`error.${code}`)) return t(`error.${code}`);
  return (err && err.message) || String(err);
}
