/**
 * The headers every HTML page of the hub carries under its own `policy` (the pages' and the API
 * reference's differ in what they load): no sniffing, no framing (`frame-ancestors` and, for older
 * browsers, `X-Frame-Options`), no referrer to other sites.
 */
export function pageHeaders(res: Response, policy: string): void {
  res.headers.set("content-security-policy", policy);
  res.headers.set("x-content-type-options", "nosniff");
  res.headers.set("x-frame-options", "DENY");
  res.headers.set("referrer-policy", "same-origin");
}
