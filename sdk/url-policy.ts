// The one outbound URL policy: every server-side request (webhooks, images, HTML sub-resources) asks it first.
import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

export type Resolver = (host: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface UrlPolicyOptions {
  /** Allow loopback, private, CGNAT and link-local targets (QUIRE_ALLOW_PRIVATE_NETWORK); metadata hosts stay refused. */
  allowPrivateNetwork: boolean;
  /** Replaces `dns.lookup(host, {all: true, verbatim: true})`; tests use it to avoid real DNS. */
  resolver?: Resolver;
}

/** `unresolved`: the host name has no usable DNS answer (a failure to reach it, rather than a refused destination). */
export type UrlDecision = { allowed: true; url: URL; address: string; family: 4 | 6 } | { allowed: false; reason: string; unresolved?: true };
export type SyntaxDecision = { allowed: true; url: URL } | { allowed: false; reason: string };

const PRIVATE_HINT = '; set QUIRE_ALLOW_PRIVATE_NETWORK=true to allow private targets in development';
const METADATA_HINT = ', which is refused even when QUIRE_ALLOW_PRIVATE_NETWORK=true';
const NEVER_HINT = ', which is never a valid destination';

/**
 * Cloud instance-metadata and host-agent endpoints. They hand out credentials to whoever can reach them,
 * so they are refused even when private targets are allowed: a developer's local receiver never lives there.
 */
const METADATA_ADDRESSES: readonly IP[] = [
  '169.254.169.254', // AWS, GCP, Azure, OCI, DigitalOcean, OpenStack instance metadata
  '169.254.170.2', // AWS ECS task metadata and credentials
  '169.254.170.23', // AWS EKS Pod Identity agent
  'fd00:ec2::254', // AWS instance metadata over IPv6
  'fd00:ec2::23', // AWS EKS Pod Identity agent over IPv6
  '100.100.100.200', // Alibaba Cloud instance metadata
  '168.63.129.16', // Azure WireServer / host agent (a public-looking address reachable only inside Azure)
  '192.0.0.192', // Oracle Cloud legacy metadata
].map((a) => ipaddr.parse(a));

const METADATA_HOSTNAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/**
 * Ports browsers refuse to fetch (WHATWG Fetch "bad port" list, plus 0): SMTP, SSH, IRC, … An HTTP
 * request aimed at them is a cross-protocol attack, never a webhook.
 */
const BLOCKED_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** public: allowed; private: allowed only with allowPrivateNetwork; metadata and never: always refused. */
type Verdict = { kind: 'public' } | { kind: 'private' | 'metadata' | 'never'; what: string };

const PRIVATE_RANGES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  deprecatedSiteLocal: 'a site-local IPv6 address',
};

const NEVER_RANGES: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
};

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function v4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function isMetadata(ip: IP): boolean {
  return METADATA_ADDRESSES.some((m) => m.kind() === ip.kind() && ip.match(m, ip.kind() === 'ipv4' ? 32 : 128));
}

/** An IPv6 address that carries an IPv4 address inside is judged by that IPv4 address. */
function embedded(label: string, inner: ipaddr.IPv4): Verdict {
  const v = classify(inner);
  return v.kind === 'public' ? v : { kind: v.kind, what: `${label} embedding ${inner.toString()}, ${v.what}` };
}

function classify(input: IP): Verdict {
  const ip: IP = input.kind() === 'ipv6' && (input as ipaddr.IPv6).isIPv4MappedAddress() ? (input as ipaddr.IPv6).toIPv4Address() : input;
  if (isMetadata(ip)) return { kind: 'metadata', what: 'a cloud metadata address' };
  const range = ip.range();
  if (range === 'unicast') {
    if (ip.kind() === 'ipv4') return { kind: 'public' };
    const v6 = ip as ipaddr.IPv6;
    if (v6.match(GLOBAL_UNICAST_V6)) return { kind: 'public' };
    // ::a.b.c.d (deprecated IPv4-compatible) and everything outside 2000::/3 is unassigned space.
    const compat = v6.parts.slice(0, 6).every((p) => p === 0);
    return { kind: 'never', what: compat ? 'a deprecated IPv4-compatible IPv6 address' : 'an unassigned IPv6 address' };
  }
  if (ip.kind() === 'ipv6') {
    const p = (ip as ipaddr.IPv6).parts;
    if (range === '6to4') return embedded('a 6to4 address', v4FromWords(p[1]!, p[2]!));
    if (range === 'rfc6145') return embedded('an IPv4-translated address', v4FromWords(p[6]!, p[7]!));
    if (range === 'rfc6052') {
      if (ip.match(NAT64_WELL_KNOWN)) return embedded('a NAT64 address', v4FromWords(p[6]!, p[7]!));
      return { kind: 'private', what: 'a local-use NAT64 address' };
    }
    if (range === 'teredo') {
      // Teredo carries the relay server in bits 32-63 and the client, inverted, in the last 32 bits.
      const server = embedded('a Teredo address', v4FromWords(p[2]!, p[3]!));
      if (server.kind !== 'public') return server;
      return embedded('a Teredo address', v4FromWords(~p[6]! & 0xffff, ~p[7]! & 0xffff));
    }
  }
  const priv = PRIVATE_RANGES[range];
  if (priv) return { kind: 'private', what: priv };
  return { kind: 'never', what: NEVER_RANGES[range] ?? `a special-purpose address (${range})` };
}

function hint(v: Exclude<Verdict, { kind: 'public' }>): string {
  return v.kind === 'private' ? PRIVATE_HINT : v.kind === 'metadata' ? METADATA_HINT : NEVER_HINT;
}

function parseAddress(address: string): IP | null {
  try {
    return ipaddr.process(address);
  } catch {
    return null;
  }
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

function defaultResolver(host: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
  return lookup(host, { all: true, verbatim: true }) as Promise<Array<{ address: string; family: 4 | 6 }>>;
}

export class UrlPolicy {
  readonly #allowPrivate: boolean;
  readonly #resolve: Resolver;

  constructor(opts: UrlPolicyOptions) {
    this.#allowPrivate = opts.allowPrivateNetwork;
    this.#resolve = opts.resolver ?? defaultResolver;
  }

  /** Pure checks that need no DNS: scheme, credentials, literal addresses, port, reserved names. `what` names the URL in reasons. */
  checkSyntax(raw: string, what = 'the URL'): SyntaxDecision {
    const parsed = this.#syntax(raw, what);
    return parsed.allowed ? { allowed: true, url: parsed.url } : parsed;
  }

  /** Full decision: syntax + DNS resolution; every resolved address must be allowed; returns the address to pin the connection to. */
  async check(raw: string, what = 'the URL'): Promise<UrlDecision> {
    const parsed = this.#syntax(raw, what);
    if (!parsed.allowed) return parsed;
    const { url, literal } = parsed;
    if (literal) return { allowed: true, url, address: literal.address, family: literal.family };

    const host = url.hostname.replace(/\.$/, '').toLowerCase();
    // RFC 6761: localhost names are loopback by definition; answer without DNS (only reached when private targets are allowed).
    if (isLocalhostName(host)) return { allowed: true, url, address: '127.0.0.1', family: 4 };

    let answers: Array<{ address: string; family: 4 | 6 }>;
    try {
      answers = await this.#resolve(url.hostname);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return { allowed: false, reason: `${what} host ${url.hostname} could not be resolved (${code})`, unresolved: true };
    }
    if (answers.length === 0) return { allowed: false, reason: `${what} host ${url.hostname} resolved to no addresses`, unresolved: true };
    // Every answer must pass: the resolver's order is not ours to trust, and a mixed answer is a rebinding attempt.
    for (const a of answers) {
      const ip = parseAddress(a.address);
      if (!ip) return { allowed: false, reason: `${what} host ${url.hostname} resolved to ${a.address}, which is not an IP address` };
      const v = classify(ip);
      if (v.kind === 'public' || (v.kind === 'private' && this.#allowPrivate)) continue;
      return { allowed: false, reason: `${what} (${url.hostname}) resolves to ${ip.toString()}, ${v.what}${hint(v)}` };
    }
    const first = parseAddress(answers[0]!.address)!;
    return { allowed: true, url, address: first.toString(), family: first.kind() === 'ipv4' ? 4 : 6 };
  }

  /** Is this IP address allowed as a destination? (IPv4-mapped IPv6 unmapped first) */
  isAddressAllowed(address: string): boolean {
    const ip = parseAddress(address.replace(/^\[(.*)\]$/, '$1'));
    if (!ip) return false;
    const v = classify(ip);
    return v.kind === 'public' || (v.kind === 'private' && this.#allowPrivate);
  }

  #syntax(
    raw: string,
    what: string,
  ): { allowed: true; url: URL; literal: { address: string; family: 4 | 6 } | null } | { allowed: false; reason: string } {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { allowed: false, reason: `${what} is not a valid absolute URL` };
    }
    // The WHATWG parser lower-cases the scheme, so HTTP:// arrives here as http:.
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { allowed: false, reason: `${what} uses the ${url.protocol.replace(/:$/, '')} scheme; only http and https are allowed` };
    }
    if (url.username !== '' || url.password !== '') {
      return { allowed: false, reason: `${what} contains a user name or password; credentials are not allowed in URLs, send them as headers instead` };
    }
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    if (BLOCKED_PORTS.has(port)) {
      return { allowed: false, reason: `${what} uses port ${port}, which is reserved for a non-HTTP protocol and blocked for outbound requests` };
    }

    const hostname = url.hostname;
    // The parser has already turned 127.1, 2130706433, 0x7f.1 and 0177.0.0.1 into dotted quads, and IPv6 into [..].
    if (hostname.startsWith('[') || isIPv4(hostname)) {
      const ip = parseAddress(hostname.replace(/^\[(.*)\]$/, '$1'));
      if (!ip) return { allowed: false, reason: `${what} has an unreadable IP address ${hostname}` };
      const v = classify(ip);
      if (v.kind !== 'public' && !(v.kind === 'private' && this.#allowPrivate)) {
        const shown = ip.toString() === hostname ? hostname : `${ip.toString()} (written ${hostname})`;
        return { allowed: false, reason: `${what} points to ${shown}, ${v.what}${hint(v)}` };
      }
      return { allowed: true, url, literal: { address: ip.toString(), family: ip.kind() === 'ipv4' ? 4 : 6 } };
    }

    const host = hostname.replace(/\.$/, '').toLowerCase();
    if (METADATA_HOSTNAMES.has(host)) {
      return { allowed: false, reason: `${what} points to ${hostname}, a cloud metadata host${METADATA_HINT}` };
    }
    if (isLocalhostName(host) && !this.#allowPrivate) {
      return { allowed: false, reason: `${what} points to ${hostname}, a loopback name${PRIVATE_HINT}` };
    }
    return { allowed: true, url, literal: null };
  }
}
