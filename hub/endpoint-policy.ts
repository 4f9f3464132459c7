import ipaddr from "ipaddr.js";

/**
 * Which endpoints the hub may fetch. A deployed hub fetches only public `http(s)` addresses: literal
 * IPs are classified with ipaddr.js and only global unicast passes (RFC 1918, 127/8, ::1, 169.254/16
 * (cloud metadata), fc00::/7, 0.0.0.0, 100.64/10, multicast, reserved and documentation ranges are
 * refused; an IPv4-mapped IPv6 address is judged as the IPv4 address it carries). Host names are
 * judged by name only: a Worker has no DNS API, so a public name whose record points at a private
 * address is not caught here (Cloudflare's own egress, not this check, is what stands between a
 * deployed Worker and private networks). Names that always mean this machine or a local network
 * (`localhost`, `*.localhost`, `*.local`, `*.internal` such as `metadata.google.internal`,
 * `*.home.arpa`) are refused. A local hub sets `HUB_ALLOW_PRIVATE_UPSTREAMS=true` (the Node dev entry
 * does), so `npm run dev` can publish envs served on localhost.
 */
export type EndpointVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const LOCAL_NAMES = [/^localhost$/, /\.localhost$/, /\.local$/, /\.internal$/, /\.home\.arpa$/];

/** True when the bindings allow private, loopback and link-local endpoints (local hubs only). */
export function allowsPrivateUpstreams(bindings: Record<string, unknown>): boolean {
  const v = bindings.HUB_ALLOW_PRIVATE_UPSTREAMS;
  return v === true || v === "true" || v === "1";
}

/**
 * Whether the hub may fetch `endpoint`. `hubOrigin` (the origin the request came in on) is refused
 * too: the hub forwarding to itself is a loop.
 */
export function checkEndpoint(
  endpoint: string,
  opts: { allowPrivate: boolean; hubOrigin?: string },
): EndpointVerdict {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { ok: false, reason: "the endpoint is not a URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: "only http and https endpoints are allowed" };
  }
  if (opts.hubOrigin !== undefined && url.origin === opts.hubOrigin) {
    return { ok: false, reason: "the endpoint is this hub itself; publish a built-in or another host" };
  }
  if (opts.allowPrivate) return { ok: true, url };
  // URL keeps IPv6 literals in brackets and normalises IPv4 spellings (0x7f.1, 2130706433) to dotted form.
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (ipaddr.isValid(host)) {
    return isPublicAddress(host)
      ? { ok: true, url }
      : { ok: false, reason: "private, loopback, link-local and reserved addresses are not allowed" };
  }
  if (LOCAL_NAMES.some((re) => re.test(host.replace(/\.$/, "")))) {
    return { ok: false, reason: "local host names are not allowed" };
  }
  return { ok: true, url };
}

/** Only global unicast: everything ipaddr.js gives a special range name is refused. */
export function isPublicAddress(literal: string): boolean {
  let addr = ipaddr.parse(literal);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr.range() === "unicast";
}
