// Decisions of the outbound URL policy, made without connecting anywhere and without real DNS.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UrlPolicy, type Resolver } from '../../sdk/url-policy.js';

/** A resolver that answers from a table and records every name it was asked about. */
function fakeResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (host: string) => {
    asked.push(host);
    const list = table[host];
    if (!list) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(fn, { asked });
}

function strictPolicy(table: Record<string, string[]> = {}) {
  const resolver = fakeResolver(table);
  return { policy: new UrlPolicy({ allowPrivateNetwork: false, resolver }), resolver };
}

async function refused(policy: UrlPolicy, url: string): Promise<string> {
  const d = await policy.check(url);
  if (d.allowed) assert.unreachable(`${url} was allowed (address ${d.address})`);
  return d.allowed ? '' : d.reason;
}

const LOOPBACK_SPELLINGS = [
  'http://127.0.0.1/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0x7f.1/',
  'http://0177.0.0.1/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::1]/',
  'HTTP://127.0.0.1/',
];

for (const url of LOOPBACK_SPELLINGS) {
  test(`refuses ${url} as a loopback address without DNS`, async () => {
    const { policy, resolver } = strictPolicy();
    const reason = await refused(policy, url);
    assert.match(reason, 'loopback');
    assert.match(reason, 'QUIRE_ALLOW_PRIVATE_NETWORK=true');
    assert.equal(resolver.asked, []);
  });
}

test('recognises an upper-case HTTP scheme as http and judges its host', () => {
  const { policy } = strictPolicy();
  const d = policy.checkSyntax('HTTP://127.0.0.1/');
  assert.is(d.allowed, false);
  if (!d.allowed) assert.not.match(d.reason, 'scheme');
  const ok = policy.checkSyntax('HTTPS://93.184.216.34/x');
  assert.is(ok.allowed, true);
  if (ok.allowed) assert.is(ok.url.protocol, 'https:');
});

for (const url of ['http://localhost/', 'http://localhost:8080/hook', 'http://foo.localhost/', 'http://LOCALHOST./']) {
  test(`refuses ${url} as a loopback name without DNS`, async () => {
    const { policy, resolver } = strictPolicy({ localhost: ['93.184.216.34'], 'foo.localhost': ['93.184.216.34'] });
    assert.match(await refused(policy, url), 'loopback name');
    assert.equal(resolver.asked, []);
  });
}

for (const url of ['http://user:pw@example.com/', 'http://user@example.com/', 'https://:secret@example.com/']) {
  test(`refuses ${url} at syntax level because it carries credentials`, async () => {
    const { policy, resolver } = strictPolicy({ 'example.com': ['93.184.216.34'] });
    const syntax = policy.checkSyntax(url);
    assert.is(syntax.allowed, false);
    assert.match(await refused(policy, url), 'user name or password');
    assert.equal(resolver.asked, []);
  });
}

for (const url of ['ftp://93.184.216.34/file', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/plain,hi', 'gopher://93.184.216.34/']) {
  test(`refuses the non-http scheme of ${url}`, async () => {
    const { policy } = strictPolicy();
    assert.match(await refused(policy, url), 'only http and https are allowed');
  });
}

test('refuses text that is not an absolute URL', async () => {
  const { policy } = strictPolicy();
  assert.match(await refused(policy, 'not a url'), 'not a valid absolute URL');
  assert.match(await refused(policy, '/relative/path'), 'not a valid absolute URL');
});

const PRIVATE_TARGETS: Array<[string, string]> = [
  ['http://10.0.0.1/', 'private'],
  ['http://192.168.1.1', 'private'],
  ['http://172.16.0.1', 'private'],
  ['http://172.31.255.255/', 'private'],
  ['http://100.64.0.1/', 'carrier-grade NAT'],
  ['http://169.254.1.1/', 'link-local'],
  ['http://[fe80::1]/', 'link-local'],
  ['http://[fc00::1]/', 'unique-local'],
  ['http://[fd12:3456::1]/', 'unique-local'],
  ['http://[::ffff:10.0.0.1]/', 'private'],
];

for (const [url, kind] of PRIVATE_TARGETS) {
  test(`refuses ${url} as ${kind} and names the switch that allows it`, async () => {
    const { policy } = strictPolicy();
    const reason = await refused(policy, url);
    assert.match(reason, kind);
    assert.match(reason, 'QUIRE_ALLOW_PRIVATE_NETWORK=true');
  });
}

const NEVER_TARGETS: Array<[string, string]> = [
  ['http://0.0.0.0/', 'unspecified'],
  ['http://0.1.2.3/', 'unspecified'],
  ['http://[::]/', 'unspecified'],
  ['http://255.255.255.255/', 'broadcast'],
  ['http://224.0.0.1/', 'multicast'],
  ['http://[ff02::1]/', 'multicast'],
  ['http://192.0.2.10/', 'reserved or documentation'],
  ['http://198.51.100.7/', 'reserved or documentation'],
  ['http://203.0.113.9/', 'reserved or documentation'],
  ['http://198.18.0.1/', 'reserved or documentation'],
  ['http://240.0.0.1/', 'reserved or documentation'],
  ['http://[2001:db8::1]/', 'reserved or documentation'],
  ['http://[2001:2::1]/', 'benchmarking'],
  ['http://[::7f00:1]/', 'IPv4-compatible'],
  ['http://[4000::1]/', 'unassigned'],
];

for (const [url, kind] of NEVER_TARGETS) {
  test(`refuses ${url} as ${kind} even when private targets are allowed`, async () => {
    const { policy } = strictPolicy();
    assert.match(await refused(policy, url), kind);
    const lenient = new UrlPolicy({ allowPrivateNetwork: true, resolver: fakeResolver({}) });
    assert.match(await refused(lenient, url), 'never a valid destination');
  });
}

const EMBEDDED_TARGETS: Array<[string, string]> = [
  ['http://[2002:7f00:1::]/', '6to4 address embedding 127.0.0.1'],
  ['http://[2002:a00:1::1]/', '6to4 address embedding 10.0.0.1'],
  ['http://[64:ff9b::a00:1]/', 'NAT64 address embedding 10.0.0.1'],
  ['http://[64:ff9b::7f00:1]/', 'NAT64 address embedding 127.0.0.1'],
  ['http://[64:ff9b:1::1]/', 'local-use NAT64'],
  ['http://[::ffff:0:a00:1]/', 'IPv4-translated address embedding 10.0.0.1'],
  // RFC 4380 example: server 65.54.227.120, client 192.0.2.45 (a documentation address) after inversion.
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'Teredo address embedding 192.0.2.45'],
  ['http://[2001:0:a00:1::]/', 'Teredo address embedding 10.0.0.1'],
];

for (const [url, text] of EMBEDDED_TARGETS) {
  test(`refuses ${url} because it is a ${text}`, async () => {
    const { policy } = strictPolicy();
    assert.match(await refused(policy, url), text);
  });
}

test('allows IPv6 transition addresses that embed a public IPv4 address', async () => {
  const { policy } = strictPolicy();
  for (const url of ['http://[2002:5db8:d822::1]/', 'http://[64:ff9b::5db8:d822]/']) {
    const d = await policy.check(url);
    assert.ok(d.allowed, `${url} should be allowed`);
  }
});

for (const url of [
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:169.254.169.254]/',
  'http://[fd00:ec2::254]/',
  'http://169.254.170.2/v2/credentials',
  'http://100.100.100.200/latest/meta-data/',
  'http://168.63.129.16/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://metadata/',
  'http://Metadata.Google.Internal./',
]) {
  test(`refuses the cloud metadata target ${url} whether or not private targets are allowed`, async () => {
    for (const allowPrivateNetwork of [false, true]) {
      const resolver = fakeResolver({ 'metadata.google.internal': ['169.254.169.254'], metadata: ['169.254.169.254'] });
      const policy = new UrlPolicy({ allowPrivateNetwork, resolver });
      const reason = await refused(policy, url);
      assert.match(reason, 'metadata');
      assert.match(reason, 'refused even when QUIRE_ALLOW_PRIVATE_NETWORK=true');
      assert.equal(resolver.asked, []);
    }
  });
}

for (const url of ['http://93.184.216.34:25/', 'http://93.184.216.34:22/', 'https://93.184.216.34:6667/', 'http://93.184.216.34:0/']) {
  test(`refuses ${url} because the port belongs to a non-HTTP protocol`, () => {
    const { policy } = strictPolicy();
    const d = policy.checkSyntax(url);
    assert.is(d.allowed, false);
    if (!d.allowed) assert.match(d.reason, 'blocked for outbound requests');
  });
}

test('allows a public IPv4 literal and pins it without asking DNS', async () => {
  const { policy, resolver } = strictPolicy();
  const d = await policy.check('http://93.184.216.34/hooks?x=1');
  assert.ok(d.allowed);
  if (d.allowed) {
    assert.is(d.address, '93.184.216.34');
    assert.is(d.family, 4);
    assert.is(d.url.pathname, '/hooks');
  }
  assert.equal(resolver.asked, []);
});

test('allows a public IPv6 literal and usual HTTP ports', async () => {
  const { policy, resolver } = strictPolicy();
  const d = await policy.check('https://[2606:2800:220:1:248:1893:25c8:1946]:8443/');
  assert.ok(d.allowed);
  if (d.allowed) {
    assert.is(d.address, '2606:2800:220:1:248:1893:25c8:1946');
    assert.is(d.family, 6);
  }
  assert.equal(resolver.asked, []);
});

test('refuses a hostname when any one of its addresses is private', async () => {
  const { policy, resolver } = strictPolicy({ 'mixed.example': ['93.184.216.34', '10.0.0.1'] });
  const reason = await refused(policy, 'https://mixed.example/hook');
  assert.match(reason, 'resolves to 10.0.0.1, a private address; set QUIRE_ALLOW_PRIVATE_NETWORK=true');
  assert.equal(resolver.asked, ['mixed.example']);
});

test('refuses a hostname that resolves to an IPv4-mapped loopback address', async () => {
  const { policy } = strictPolicy({ 'sneaky.example': ['::ffff:127.0.0.1'] });
  assert.match(await refused(policy, 'http://sneaky.example/'), 'resolves to 127.0.0.1, a loopback address');
});

test('refuses a hostname that resolves to a metadata address even when private targets are allowed', async () => {
  const policy = new UrlPolicy({ allowPrivateNetwork: true, resolver: fakeResolver({ 'imds.example': ['127.0.0.1', '169.254.169.254'] }) });
  assert.match(await refused(policy, 'http://imds.example/'), 'cloud metadata address');
});

test('allows a hostname whose every address is public and returns the first as the pinned address', async () => {
  const { policy } = strictPolicy({ 'hooks.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
  const d = await policy.check('https://hooks.example/receive');
  assert.ok(d.allowed);
  if (d.allowed) {
    assert.is(d.address, '93.184.216.34');
    assert.is(d.family, 4);
    assert.is(d.url.hostname, 'hooks.example');
  }
});

test('refuses a hostname that does not resolve, naming the DNS error', async () => {
  const { policy } = strictPolicy();
  assert.match(await refused(policy, 'https://nowhere.example/'), 'could not be resolved (ENOTFOUND)');
});

test('refuses a hostname that resolves to no addresses', async () => {
  const { policy } = strictPolicy({ 'empty.example': [] });
  assert.match(await refused(policy, 'https://empty.example/'), 'resolved to no addresses');
});

test('allows loopback, private and link-local targets when private targets are allowed', async () => {
  const resolver = fakeResolver({ 'dev.example': ['10.1.2.3', 'fd12::1'] });
  const policy = new UrlPolicy({ allowPrivateNetwork: true, resolver });
  for (const url of ['http://127.0.0.1:8080/', 'http://[::1]/', 'http://10.0.0.1/', 'http://169.254.1.1/', 'http://[fe80::1]/', 'http://100.64.0.1/', 'http://dev.example/']) {
    const d = await policy.check(url);
    assert.ok(d.allowed, `${url} should be allowed`);
  }
});

test('answers localhost names with 127.0.0.1 without DNS when private targets are allowed', async () => {
  const resolver = fakeResolver({});
  const policy = new UrlPolicy({ allowPrivateNetwork: true, resolver });
  for (const url of ['http://localhost:3000/', 'http://hooks.localhost/']) {
    const d = await policy.check(url);
    assert.ok(d.allowed);
    if (d.allowed) assert.is(d.address, '127.0.0.1');
  }
  assert.equal(resolver.asked, []);
});

test('reports literal addresses in their unmapped form and names the written form', async () => {
  const { policy } = strictPolicy();
  const reason = await refused(policy, 'http://[::ffff:127.0.0.1]/');
  assert.match(reason, 'points to 127.0.0.1 (written [::ffff:7f00:1]), a loopback address');
});

test('judges bare addresses, unmapping IPv4-mapped IPv6 first', () => {
  const strict = new UrlPolicy({ allowPrivateNetwork: false });
  const lenient = new UrlPolicy({ allowPrivateNetwork: true });
  const cases: Array<[string, boolean, boolean]> = [
    ['93.184.216.34', true, true],
    ['2606:2800:220:1:248:1893:25c8:1946', true, true],
    ['127.0.0.1', false, true],
    ['::ffff:127.0.0.1', false, true],
    ['::ffff:7f00:1', false, true],
    ['::1', false, true],
    ['10.0.0.1', false, true],
    ['fe80::1%eth0', false, true],
    ['169.254.169.254', false, false],
    ['::ffff:169.254.169.254', false, false],
    ['fd00:ec2::254', false, false],
    ['0.0.0.0', false, false],
    ['::', false, false],
    ['224.0.0.1', false, false],
    ['not-an-address', false, false],
    ['', false, false],
  ];
  for (const [address, strictOk, lenientOk] of cases) {
    assert.is(strict.isAddressAllowed(address), strictOk, `strict ${address}`);
    assert.is(lenient.isAddressAllowed(address), lenientOk, `lenient ${address}`);
  }
});

test.run();
