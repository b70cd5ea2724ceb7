import { describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { GENESIS_HASH, hashAuditEntry, type AuditEntry } from '../../src/platform/audit/audit';
import { parseCheckpoint, verifyEntries } from '../../src/platform/audit/audit-verify';
import { canonicalJson } from '../../src/platform/core/canonical-json';
import { AppError } from '../../src/platform/core/errors';

/** Seeded so a failing mutation can be replayed: the seed is in every assertion message. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const hex = (length: number) => Array.from({ length }, () => '0123456789abcdef'[int(16)]).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  return { next, int, pick, hex, uuid };
}
type Random = ReturnType<typeof randomSource>;

const MODULES = ['risks', 'controls', 'security', 'apiTokens', 'settings'];
const ACTIONS = ['create', 'update', 'delete', 'permission.denied', 'import'];

function randomDetails(random: Random): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (let i = random.int(4); i > 0; i -= 1) {
    details[random.pick(['title', 'changes', 'reason', 'zählung', '✓', 'rows', 'b', 'a'])] = random.pick<unknown>([
      random.int(1e6),
      random.next() * 100,
      `text ${random.hex(6)} "quoted" \n line`,
      null,
      true,
      [random.int(10), 'x', { nested: random.hex(4) }],
      { before: random.int(5), after: random.int(5) },
    ]);
  }
  return details;
}

function appendRandomEntry(chain: AuditEntry[], random: Random, at: Date): AuditEntry {
  const previous = chain[chain.length - 1];
  const byToken = random.next() < 0.3;
  const unhashed: Omit<AuditEntry, 'hash'> = {
    seq: (previous?.seq ?? 0) + 1,
    at: at.toISOString(),
    actorKind: byToken ? 'token' : random.pick(['user', 'system']),
    actorUserId: random.next() < 0.8 ? random.uuid() : null,
    actorTokenId: byToken ? random.uuid() : null,
    via: byToken ? 'api' : random.pick(['screen', 'cli', 'import']),
    module: random.pick(MODULES),
    action: random.pick(ACTIONS),
    recordType: random.next() < 0.9 ? 'risk' : null,
    recordId: random.next() < 0.9 ? random.uuid() : null,
    details: randomDetails(random),
    prevHash: previous?.hash ?? GENESIS_HASH,
  };
  const entry = { ...unhashed, hash: hashAuditEntry(unhashed) };
  chain.push(entry);
  return entry;
}

function randomChain(random: Random, length: number): AuditEntry[] {
  const chain: AuditEntry[] = [];
  let at = Date.parse('2026-01-01T00:00:00.000Z');
  for (let i = 0; i < length; i += 1) {
    at += random.int(5000);
    appendRandomEntry(chain, random, new Date(at));
  }
  return chain;
}

/** A change to one field that always alters the entry's canonical content (or its stored hash). */
function editOneField(entry: AuditEntry, random: Random): { entry: AuditEntry; field: string } {
  const field = random.pick([
    'seq', 'at', 'actorKind', 'actorUserId', 'actorTokenId', 'via', 'module', 'action', 'recordType', 'recordId', 'details', 'prevHash', 'hash',
  ] as const);
  const edited: AuditEntry = { ...entry, details: structuredClone(entry.details) };
  switch (field) {
    case 'seq':
      edited.seq = random.next() < 0.5 ? entry.seq + 1 + random.int(50) : entry.seq - 1 - random.int(Math.max(1, entry.seq));
      break;
    case 'at':
      edited.at = new Date(Date.parse(entry.at) + 1 + random.int(10_000)).toISOString();
      break;
    case 'details':
      if (random.next() < 0.5) edited.details.injected = random.hex(8);
      else edited.details = {};
      if (JSON.stringify(edited.details) === JSON.stringify(entry.details)) edited.details.injected = 1;
      break;
    case 'prevHash':
    case 'hash': {
      const value = entry[field];
      const position = random.int(64);
      const flipped = value[position] === '0' ? '1' : '0';
      edited[field] = value.slice(0, position) + flipped + value.slice(position + 1);
      break;
    }
    default: {
      const value = entry[field];
      edited[field] = value === null ? random.uuid() : `${value}x`;
    }
  }
  return { entry: edited, field };
}

/** The oracle: the first position whose entry is no longer the original one, named by the seq that belongs there. */
function firstAffectedSeq(original: AuditEntry[], mutated: AuditEntry[]): number {
  for (let i = 0; i < original.length; i += 1) {
    if (JSON.stringify(original[i]) !== JSON.stringify(mutated[i])) return original[i].seq;
  }
  throw new Error('mutation changed nothing');
}

const CHAIN_LENGTH = 120;
const ROUNDS_PER_KIND = 150;

describe('Audit Log chain: every single mutation is reported at exactly the first affected entry', () => {
  test('the untouched chain verifies and names its head as the checkpoint', () => {
    const chain = randomChain(randomSource(1), CHAIN_LENGTH);
    const result = verifyEntries(chain);
    const head = chain[chain.length - 1];
    // Strictly: an intact log that starts at entry 1 carries no prunedThrough at all, not one left undefined.
    expect(result).toStrictEqual({ ok: true, count: CHAIN_LENGTH, head: { seq: head.seq, hash: head.hash }, checkpoint: `${head.seq}:${head.hash}` });
    expect(verifyEntries(chain, { since: `${chain[40].seq}:${chain[40].hash}` }).since).toEqual({ checkpoint: `41:${chain[40].hash}`, extended: true });
    expect(verifyEntries([])).toEqual({ ok: true, count: 0, head: null, checkpoint: null });
  });

  const kinds: Record<string, (chain: AuditEntry[], random: Random) => AuditEntry[]> = {
    'edit a field': (chain, random) => {
      const index = random.int(chain.length);
      const mutated = [...chain];
      mutated[index] = editOneField(chain[index], random).entry;
      return mutated;
    },
    // The first entry is excluded: removing it is indistinguishable from pruning (tested below); the last is truncation.
    'delete an entry': (chain, random) => {
      const index = 1 + random.int(chain.length - 2);
      return chain.filter((_, i) => i !== index);
    },
    'swap two entries': (chain, random) => {
      const first = random.int(chain.length - 1);
      const second = random.next() < 0.5 ? first + 1 : first + 1 + random.int(chain.length - first - 1);
      const mutated = [...chain];
      [mutated[first], mutated[second]] = [mutated[second], mutated[first]];
      return mutated;
    },
    'insert a copy of another entry': (chain, random) => {
      const mutated = [...chain];
      mutated.splice(random.int(chain.length), 0, chain[random.int(chain.length)]);
      return mutated;
    },
    'insert a made-up entry linked to its predecessor': (chain, random) => {
      const index = random.int(chain.length);
      const made: AuditEntry = {
        ...chain[index], seq: index + 1, prevHash: index === 0 ? GENESIS_HASH : chain[index - 1].hash, action: 'forged', hash: random.hex(64),
      };
      const mutated = [...chain];
      mutated.splice(index, 0, made);
      return mutated;
    },
  };

  for (const [kind, mutate] of Object.entries(kinds)) {
    test(kind, () => {
      for (let round = 0; round < ROUNDS_PER_KIND; round += 1) {
        const seed = kind.length * 1000 + round;
        const random = randomSource(seed);
        const chain = randomChain(random, 5 + random.int(CHAIN_LENGTH));
        const mutated = mutate(chain, random);
        const result = verifyEntries(mutated);
        const context = `seed ${seed}: ${JSON.stringify(result.firstBad)}`;
        expect(result.ok, context).toBe(false);
        expect(result.firstBad?.seq, context).toBe(firstAffectedSeq(chain, mutated));
        expect(result.count, context).toBe(mutated.length);
      }
    });
  }

  test('an inserted entry whose hash was recomputed is caught at the first original entry after it', () => {
    for (let round = 0; round < ROUNDS_PER_KIND; round += 1) {
      const random = randomSource(90_000 + round);
      const chain = randomChain(random, 5 + random.int(CHAIN_LENGTH));
      const index = random.int(chain.length);
      const unhashed = { ...chain[index], seq: index + 1, prevHash: index === 0 ? GENESIS_HASH : chain[index - 1].hash, action: 'forged' };
      const mutated = [...chain];
      mutated.splice(index, 0, { ...unhashed, hash: hashAuditEntry(unhashed) });
      const result = verifyEntries(mutated);
      expect(result.firstBad, `round ${round}`).toEqual({
        seq: index + 2, reason: `expected entry ${index + 2} but found entry ${index + 1} (inserted, duplicated or out of order)`,
      });
    }
  });

  test('a chain rewritten from some entry to the end verifies on its own but not against an earlier checkpoint', () => {
    const random = randomSource(7);
    const chain = randomChain(random, 60);
    const checkpoint = `${chain[49].seq}:${chain[49].hash}`;
    const rewritten = chain.slice(0, 30);
    for (let i = 30; i < 60; i += 1) appendRandomEntry(rewritten, random, new Date(chain[i].at));
    expect(verifyEntries(rewritten).ok).toBe(true);
    const result = verifyEntries(rewritten, { since: checkpoint });
    expect(result.ok).toBe(false);
    expect(result.since?.extended).toBe(false);
    expect(result.since?.reason).toContain('rewritten');
  });
});

describe('Audit Log chain: truncation and pruning', () => {
  const chain = randomChain(randomSource(11), 80);
  const checkpointAt = (index: number) => `${chain[index].seq}:${chain[index].hash}`;

  test('truncation verifies without a checkpoint and is caught against one', () => {
    const truncated = chain.slice(0, 70);
    expect(verifyEntries(truncated)).toMatchObject({ ok: true, count: 70, head: { seq: 70 } });
    const result = verifyEntries(truncated, { since: checkpointAt(75) });
    expect(result.ok).toBe(false);
    expect(result.firstBad).toBeUndefined();
    expect(result.since).toEqual({
      checkpoint: checkpointAt(75), extended: false,
      reason: "the log ends at entry 70, before the checkpoint's entry 76: entries were removed from the end",
    });
    expect(verifyEntries(truncated, { since: checkpointAt(69) }).ok).toBe(true);
    expect(verifyEntries([], { since: checkpointAt(0) }).since?.extended).toBe(false);
  });

  test('a pruned log starts at its first remaining entry and says how far it was pruned', () => {
    const pruned = chain.slice(20);
    expect(verifyEntries(pruned)).toMatchObject({ ok: true, count: 60, prunedThrough: 20 });
    // Removing only the oldest entries is exactly what pruning does; the trigger allows it only after a year.
    expect(verifyEntries(chain.slice(1))).toMatchObject({ ok: true, prunedThrough: 1 });
    const editedAfterPrune = [...pruned];
    editedAfterPrune[5] = { ...pruned[5], module: 'edited' };
    expect(verifyEntries(editedAfterPrune).firstBad?.seq).toBe(26);
  });

  test('a checkpoint is checked after pruning only while its entry, or its successor, remains', () => {
    const pruned = chain.slice(20); // entries 21..80 remain
    expect(verifyEntries(pruned, { since: checkpointAt(30) }).since?.extended).toBe(true);
    expect(verifyEntries(pruned, { since: checkpointAt(19) }).since?.extended).toBe(true); // entry 20, pinned by entry 21's prev_hash
    const forgedLast = `${chain[19].seq}:${'f'.repeat(64)}`;
    expect(verifyEntries(pruned, { since: forgedLast }).since?.extended).toBe(false);
    const tooOld = verifyEntries(pruned, { since: checkpointAt(5) });
    expect(tooOld.ok).toBe(false);
    expect(tooOld.since?.reason).toContain('was pruned (the log now starts at entry 21)');
  });

  test('a break before the checkpoint entry means the checkpoint is not extended', () => {
    const edited = [...chain];
    edited[10] = { ...chain[10], action: 'edited' };
    const result = verifyEntries(edited, { since: checkpointAt(40) });
    expect(result.firstBad?.seq).toBe(11);
    expect(result.since?.extended).toBe(false);
  });
});

describe('canonical form (RFC 8785)', () => {
  test('sorts keys by UTF-16 code units, drops undefined members and writes numbers in shortest form', () => {
    // U+FB33 sorts after the surrogate pair of U+1F600 by code units, though before it by code points.
    const value = { b: [1, undefined, 'x'], a: { z: null, y: true }, '\ufb33': 3, '\u20ac': 1, '\ud83d\ude00': 2, '\u00e9': -0, n: 1e21, f: 0.1 + 0.2, u: undefined };
    expect(canonicalJson(value)).toBe('{"a":{"y":true,"z":null},"b":[1,null,"x"],"f":0.30000000000000004,"n":1e+21,"\u00e9":0,"\u20ac":1,"\ud83d\ude00":2,"\ufb33":3}');
  });

  test("an entry's hash is SHA-256 of the canonical JSON of its members, as any RFC 8785 library would write it", () => {
    const random = randomSource(7);
    const chain: AuditEntry[] = [];
    for (let i = 0; i < 200; i += 1) {
      const { hash, ...members } = appendRandomEntry(chain, random, new Date(Date.UTC(2026, 0, 1, 0, 0, i, i)));
      const expected = createHash('sha256').update(canonicalJson({ ...members, at: new Date(members.at).toISOString() })).digest('hex');
      expect(hash).toBe(expected);
    }
  });

  test('escapes strings exactly as JSON.stringify does', () => {
    for (const text of ['plain', 'quote " and \\ backslash', 'tab\tnew\nline\u0001', 'lone \ud800 surrogate', 'pair \ud83d\ude00', 'ünïcödé']) {
      expect(canonicalJson(text)).toBe(JSON.stringify(text));
    }
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
  });
});

describe('checkpoint text', () => {
  test('parses <seq>:<hash>, tolerating surrounding space and upper-case hex', () => {
    const hash = 'ab'.repeat(32);
    expect(parseCheckpoint(` 42:${hash.toUpperCase()}\n`)).toEqual({ seq: 42, hash });
  });

  test('refuses anything else with INVALID', () => {
    for (const text of ['', '42', `0:${'a'.repeat(64)}`, `-1:${'a'.repeat(64)}`, `42:${'a'.repeat(63)}`, `42:${'g'.repeat(64)}`, `x:${'a'.repeat(64)}`]) {
      let caught: unknown;
      try {
        parseCheckpoint(text);
      } catch (error) {
        caught = error;
      }
      expect(caught instanceof AppError && caught.code === 'INVALID', text).toBe(true);
    }
  });
});

describe('chain format: pinned known answers', () => {
  // A change to the canonical form, the key set or the genesis value would silently start a second, incompatible chain
  // format; these values are what any verifier outside the service recomputes.
  const known: Omit<AuditEntry, 'hash'> = {
    seq: 1, at: '2026-03-01T09:30:00.125Z', actorKind: 'user', actorUserId: '11111111-2222-4333-8444-555555555555', actorTokenId: null,
    via: 'api', module: 'risks', action: 'create', recordType: 'risk', recordId: '66666666-7777-4888-8999-aaaaaaaaaaaa',
    details: { changesSha256: 'ab'.repeat(32), source: 'CSV import of risks.csv' }, prevHash: GENESIS_HASH,
  };
  const KNOWN_HASH = '59a62e4c9dc1a2df4bedc36c57a9006e11ab69df55f6105a12692be8cd4ab421';

  test('the genesis hash is 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
  });

  test('one entry hashes to a pinned value: SHA-256 of exactly this canonical text', () => {
    const text = '{"action":"create","actorKind":"user","actorTokenId":null,"actorUserId":"11111111-2222-4333-8444-555555555555",'
      + '"at":"2026-03-01T09:30:00.125Z","details":{"changesSha256":"' + 'ab'.repeat(32) + '","source":"CSV import of risks.csv"},'
      + '"module":"risks","prevHash":"' + '0'.repeat(64) + '","recordId":"66666666-7777-4888-8999-aaaaaaaaaaaa","recordType":"risk","seq":1,"via":"api"}';
    expect(createHash('sha256').update(text).digest('hex')).toBe(KNOWN_HASH);
    expect(hashAuditEntry(known)).toBe(KNOWN_HASH);
    // The time is hashed in its canonical form, however the database handed it back.
    expect(hashAuditEntry({ ...known, at: '2026-03-01 10:30:00.125+01' })).toBe(KNOWN_HASH);
    expect(verifyEntries([{ ...known, hash: KNOWN_HASH }])).toMatchObject({ ok: true, count: 1, checkpoint: `1:${KNOWN_HASH}` });
  });

  test('a member left undefined is left out of the hashed text, as RFC 8785 drops it', () => {
    const { actorTokenId: _dropped, ...withoutToken } = known;
    const text = '{"action":"create","actorKind":"user","actorUserId":"11111111-2222-4333-8444-555555555555",'
      + '"at":"2026-03-01T09:30:00.125Z","details":{"changesSha256":"' + 'ab'.repeat(32) + '","source":"CSV import of risks.csv"},'
      + '"module":"risks","prevHash":"' + '0'.repeat(64) + '","recordId":"66666666-7777-4888-8999-aaaaaaaaaaaa","recordType":"risk","seq":1,"via":"api"}';
    expect(hashAuditEntry(withoutToken as Omit<AuditEntry, 'hash'>)).toBe(createHash('sha256').update(text).digest('hex'));
  });
});

describe('Audit Log chain: why a break is reported', () => {
  const rehash = (entry: AuditEntry): AuditEntry => {
    const { hash: _old, ...unhashed } = entry;
    return { ...unhashed, hash: hashAuditEntry(unhashed) };
  };

  test('a middle entry rewritten with its own hash recomputed is reported at the next entry: its prev_hash no longer matches', () => {
    const chain = randomChain(randomSource(21), 30);
    const rewritten = [...chain];
    rewritten[14] = rehash({ ...chain[14], action: 'delete', details: { forged: true } });
    const result = verifyEntries(rewritten);
    expect(result.ok).toBe(false);
    expect(result.firstBad).toEqual({
      seq: 16, reason: 'prev_hash does not match the hash of entry 15 (an entry was inserted, removed or rewritten)',
    });
    expect(result.count).toBe(30);
    expect(result.head).toEqual({ seq: 30, hash: chain[29].hash });
  });

  test('an edited entry whose hash was kept is reported at itself: its content no longer matches', () => {
    const chain = randomChain(randomSource(22), 10);
    const edited = [...chain];
    edited[3] = { ...chain[3], module: 'forged' };
    expect(verifyEntries(edited).firstBad).toEqual({ seq: 4, reason: 'content does not match its hash (the entry was edited)' });
  });

  test('entry 1 must follow the genesis hash', () => {
    const chain = randomChain(randomSource(23), 5);
    const forged = [rehash({ ...chain[0], prevHash: 'a'.repeat(64) }), ...chain.slice(1)];
    expect(verifyEntries(forged).firstBad).toEqual({ seq: 1, reason: 'prev_hash of the first entry is not the genesis hash' });
  });

  test('a first entry after 1 that carries the genesis hash is no prune: entry 1 is missing', () => {
    const chain = randomChain(randomSource(24), 5);
    const moved = [rehash({ ...chain[0], seq: 3 }), ...chain.slice(3)];
    const result = verifyEntries(moved);
    expect(result.prunedThrough).toBeUndefined();
    expect(result.firstBad).toEqual({ seq: 1, reason: 'entry 1 is missing (the next stored entry is 3)' });
  });

  test('a first entry with a seq beyond the safe integers is no prune either', () => {
    const chain = randomChain(randomSource(25), 3);
    const huge = rehash({ ...chain[1], seq: Number.MAX_SAFE_INTEGER + 2 });
    const result = verifyEntries([huge]);
    expect(result.ok).toBe(false);
    expect(result.prunedThrough).toBeUndefined();
    expect(result.firstBad?.seq).toBe(1);
  });

  test('what looks like a pruned start followed by an older entry is reported as an entry moved to the front', () => {
    const chain = randomChain(randomSource(26), 30);
    const result = verifyEntries([chain[20], ...chain.slice(1, 20), ...chain.slice(21)]);
    expect(result.prunedThrough).toBeUndefined();
    expect(result.firstBad).toEqual({ seq: 1, reason: 'the log starts with entry 21 followed by entry 2: an entry was inserted or moved to the front' });
    const later = verifyEntries([chain[20], ...chain.slice(5, 20)]);
    expect(later.firstBad).toEqual({ seq: 5, reason: 'the log starts with entry 21 followed by entry 6: an entry was inserted or moved to the front' });
    // Followed by the entry right before it: still an entry moved to the front, not a prune.
    const adjacent = verifyEntries([chain[20], chain[19], ...chain.slice(21)]);
    expect(adjacent.prunedThrough).toBeUndefined();
    expect(adjacent.firstBad).toEqual({ seq: 19, reason: 'the log starts with entry 21 followed by entry 20: an entry was inserted or moved to the front' });
  });

  test('an older entry later in a pruned log is out of order, not an entry moved to the front', () => {
    const chain = randomChain(randomSource(31), 30);
    const result = verifyEntries([...chain.slice(10, 13), chain[4], ...chain.slice(13)]);
    expect(result.prunedThrough).toBe(10);
    expect(result.firstBad).toEqual({ seq: 14, reason: 'expected entry 14 but found entry 5 (inserted, duplicated or out of order)' });
  });

  test('a gap right after a pruned start is a missing entry, not an entry moved to the front', () => {
    const chain = randomChain(randomSource(32), 20);
    const result = verifyEntries([chain[10], ...chain.slice(12)]);
    expect(result.prunedThrough).toBe(10);
    expect(result.firstBad).toEqual({ seq: 12, reason: 'entry 12 is missing (the next stored entry is 13)' });
  });

  test('a pruned log that also lost entries at its end says the end is missing, not that the checkpoint was pruned', () => {
    const chain = randomChain(randomSource(33), 20);
    const checkpoint = `${chain[17].seq}:${chain[17].hash}`;
    expect(verifyEntries(chain.slice(10, 15), { since: checkpoint })).toMatchObject({
      ok: false, prunedThrough: 10,
      since: { checkpoint, extended: false, reason: "the log ends at entry 15, before the checkpoint's entry 18: entries were removed from the end" },
    });
  });

  test('a checkpoint in the pruned part is reported as pruned even when the chain breaks after it', () => {
    const chain = randomChain(randomSource(34), 20);
    const broken = chain.slice(10);
    broken[4] = { ...broken[4], action: 'forged' };
    const checkpoint = `${chain[3].seq}:${chain[3].hash}`;
    expect(verifyEntries(broken, { since: checkpoint })).toMatchObject({
      ok: false, prunedThrough: 10, firstBad: { seq: 15, reason: 'content does not match its hash (the entry was edited)' },
      since: {
        checkpoint, extended: false,
        reason: 'entry 4 was pruned (the log now starts at entry 11); it can no longer be checked: verify against a checkpoint taken after the pruning',
      },
    });
  });

  test('an entry out of order is named with the entry found instead', () => {
    const chain = randomChain(randomSource(27), 10);
    const result = verifyEntries([...chain.slice(0, 5), chain[2], ...chain.slice(5)]);
    expect(result.firstBad).toEqual({ seq: 6, reason: 'expected entry 6 but found entry 3 (inserted, duplicated or out of order)' });
  });

  test('an entry whose time cannot be read is reported as not matching its hash, not thrown', () => {
    const chain = randomChain(randomSource(28), 4);
    const broken = [...chain];
    broken[2] = { ...chain[2], at: 'not a time' };
    expect(verifyEntries(broken).firstBad).toEqual({ seq: 3, reason: 'content does not match its hash (the entry was edited)' });
  });

  test('the checkpoint reasons say what happened', () => {
    const chain = randomChain(randomSource(29), 20);
    const at = (index: number) => `${chain[index].seq}:${chain[index].hash}`;
    const rewritten = [...chain.slice(0, 10), ...chain.slice(10).map((e) => ({ ...e }))];
    rewritten[12] = { ...chain[12], hash: 'f'.repeat(64) };
    expect(verifyEntries(rewritten, { since: `13:${chain[12].hash}` }).since).toEqual({
      checkpoint: `13:${chain[12].hash}`, extended: false, reason: 'the chain breaks at entry 13, before the checkpoint\'s entry 13',
    });
    const forged = `15:${'c'.repeat(64)}`;
    expect(verifyEntries(chain, { since: forged }).since).toEqual({
      checkpoint: forged, extended: false, reason: `entry 15 now has hash ${chain[14].hash}: the log was rewritten since the checkpoint`,
    });
    expect(verifyEntries([], { since: at(3) }).since).toEqual({ checkpoint: at(3), extended: false, reason: 'the log is empty: every entry up to the checkpoint was removed' });
    const pruned = chain.slice(10);
    expect(verifyEntries(pruned, { since: `10:${'d'.repeat(64)}` }).since).toEqual({
      checkpoint: `10:${'d'.repeat(64)}`, extended: false, reason: 'entry 10 was pruned and the first remaining entry does not link to the checkpoint\'s hash',
    });
    expect(verifyEntries(pruned, { since: at(3) }).since).toEqual({
      checkpoint: at(3), extended: false,
      reason: 'entry 4 was pruned (the log now starts at entry 11); it can no longer be checked: verify against a checkpoint taken after the pruning',
    });
    expect(verifyEntries(pruned, { since: at(9) })).toMatchObject({ ok: true, prunedThrough: 10, since: { checkpoint: at(9), extended: true } });
  });

  test('after the first break the rest is counted, not checked, and the head is the last entry read', () => {
    const chain = randomChain(randomSource(30), 12);
    const broken = [...chain];
    broken[2] = { ...chain[2], via: 'forged' };
    broken[7] = { ...chain[7], via: 'forged too' };
    expect(verifyEntries(broken)).toEqual({
      ok: false, count: 12, head: { seq: 12, hash: chain[11].hash }, checkpoint: `12:${chain[11].hash}`,
      firstBad: { seq: 3, reason: 'content does not match its hash (the entry was edited)' },
    });
  });
});

describe('checkpoint text: the whole text must be a checkpoint', () => {
  const hash = 'ab'.repeat(32);
  test.each([
    [`42:${hash}0`, 'a 65th hex digit'],
    [`42:${hash} trailing`, 'text after the hash'],
    [`a42:${hash}`, 'text before the seq'],
    [`1234567890123456:${hash}`, 'a seq of 16 digits'],
    [`42-${hash}`, 'another separator'],
  ])('refuses %s (%s)', (text) => {
    expect(() => parseCheckpoint(text)).toThrow('checkpoint must look like <seq>:<64 hex digits> with seq >= 1');
  });

  test('the refusal names the text it was given and the since field', () => {
    let caught: unknown;
    try {
      parseCheckpoint('42:nothex');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    const refusal = caught as AppError;
    expect({ code: refusal.code, message: refusal.message, problems: refusal.problems }).toEqual({
      code: 'INVALID',
      message: 'checkpoint must look like <seq>:<64 hex digits> with seq >= 1, got "42:nothex"',
      problems: [{ field: 'since', message: 'expected <seq>:<sha-256 hex>' }],
    });
  });

  test('accepts the longest seq and seq 1', () => {
    expect(parseCheckpoint(`123456789012345:${hash}`)).toEqual({ seq: 123456789012345, hash });
    expect(parseCheckpoint(`1:${hash}`)).toEqual({ seq: 1, hash });
  });
});
