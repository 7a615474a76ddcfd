// The HTTP API: GET with the hello token (my private games, my profile's recent games) and
// the account POSTs, whose refusals carry a code (and `retry_after` when rate limited).

const TOKEN_KEY = "wizard.token";

function authHeaders(token = localStorage.getItem(TOKEN_KEY)) {
  const headers = {Accept: "application/json"};
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

/** An answer other than 2xx: `status`, the server's `code` and, if rate limited, `retryAfter`. */
export class HttpError extends Error {
  constructor(status, data) {
    super((data && data.message) || `HTTP ${status}`);
    this.status = status;
    this.code = (data && data.error) || "http_error";
    this.retryAfter = data && data.retry_after !== undefined ? Number(data.retry_after) : null;
  }
}

async function answer(response) {
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new HttpError(response.status, data);
  return data;
}

/** GET `url` as JSON with my token; throws `HttpError` on a refusal. */
export async function getJson(url) {
  return answer(await fetch(url, {headers: authHeaders()}));
}

/** POST `body` as JSON (with my token unless `token` is given, null for none). */
export async function postJson(url, body = {}, token = undefined) {
  const headers = {...authHeaders(token === undefined ? localStorage.getItem(TOKEN_KEY) : token),
                   "Content-Type": "application/json"};
  return answer(await fetch(url, {method: "POST", headers, body: JSON.stringify(body)}));
}
