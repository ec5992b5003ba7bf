package net.fips.control.discovery;

import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_ALREADY_PENDING;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_BACKOFF_SUPPRESSED;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_NOT_IN_FILTERS;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_NO_TREE_PEER;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_STARTED;
import static net.fips.control.discovery.DiscoveryCounter.OTHER_MESSAGES;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_DUPLICATE;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_FORWARDED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_FOR_US;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_MALFORMED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_NO_ROUTE;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_RATE_LIMITED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_RECEIVED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_TABLE_FULL;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_TTL_EXPIRED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_ACCEPTED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_DUPLICATE;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_IDENTITY_MISS;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_MALFORMED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_PROOF_FAILED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_RECEIVED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_RELAYED;
import static net.fips.control.discovery.TestMesh.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.control.identity.TestIdentities;

/**
 * Seeded, bounded fuzzing of one {@link Discovery} with random and garbled LookupRequest/LookupResponse messages,
 * lookups and ticks: nothing throws, and every received message lands in exactly one outcome counter.
 */
class DiscoveryFuzzTest {
    @Test
    void garbledMessagesAreCountedDropsNeverExceptions() {
        for (final long seed : new long[] {1, 2, 3}) {
            run(seed, 1500);
        }
    }

    private static void run(final long seed, final int iterations) {
        final Random rnd = new Random(seed);
        // 0 under test; 1, 2 tree peers, 3 non-tree peer (all sinks).
        final TestMesh m = new TestMesh(4, seed).sink(1).sink(2).sink(3).tree(1, 0, 1280).tree(0, 2, 1400)
                .mesh(0, 3, 1500).build();
        final TestMesh.Node n = m.node(0);
        final NodeIdentity far = TestIdentities.random(new Random(seed + 1000));
        n.identities.register(far.toPeer(), 0);
        final NodeAddr[] targets = {n.addr, far.nodeAddr(), m.addr(1), m.addr(2), m.addr(3),
            NodeAddr.of(rnd.nextLong(), rnd.nextLong())};
        m.node(0).inbound.get(2).insert(far.nodeAddr());
        m.node(0).inbound.get(3).insert(targets[5]);
        final long[] ids = new long[16];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = rnd.nextLong();
        }
        final Coords farCoords = Coords.of(far.nodeAddr(), m.addr(1));
        final LookupResponse[] goodResponses = new LookupResponse[4];
        for (int i = 0; i < goodResponses.length; i++) {
            final long id = ids[i];
            goodResponses[i] = new LookupResponse(id, far.nodeAddr(), 65535, farCoords,
                    far.sign(LookupResponse.proofBytes(id, far.nodeAddr(), farCoords)));
        }
        long now = 0;
        long lookups = 0;
        for (int it = 0; it < iterations; it++) {
            now += rnd.nextInt(3) == 0 ? ms(rnd.nextInt(4_000)) : ms(rnd.nextInt(50));
            m.at(now);
            final NodeAddr from = m.addr(1 + rnd.nextInt(3));
            final byte[] msg = switch (rnd.nextInt(10)) {
                case 0, 1, 2 -> randomBytes(rnd);
                case 3, 4, 5 -> mutate(rnd, new LookupRequest(ids[rnd.nextInt(ids.length)],
                        targets[rnd.nextInt(targets.length)], m.addr(1), rnd.nextInt(4), rnd.nextInt(65536),
                        Coords.of(m.addr(1), m.addr(2))).encode());
                case 6, 7 -> mutate(rnd, goodResponses[rnd.nextInt(goodResponses.length)].encode());
                case 8 -> mutate(rnd, new LookupResponse(ids[rnd.nextInt(ids.length)],
                        targets[rnd.nextInt(targets.length)], rnd.nextInt(65536), farCoords,
                        randomSig(rnd)).encode());
                default -> null;
            };
            if (msg != null) {
                n.discovery.onLinkMessage(from, msg, now);
            } else if (rnd.nextBoolean()) {
                n.discovery.lookup(targets[rnd.nextInt(targets.length)], now);
                lookups++;
            } else {
                n.discovery.tick(now);
            }
            m.bus.clear();
        }
        final Discovery d = n.discovery;
        assertEquals(d.counter(REQUESTS_RECEIVED), d.counter(REQUESTS_MALFORMED) + d.counter(REQUESTS_DUPLICATE)
                + d.counter(REQUESTS_TABLE_FULL) + d.counter(REQUESTS_FOR_US) + d.counter(REQUESTS_TTL_EXPIRED)
                + d.counter(REQUESTS_RATE_LIMITED) + d.counter(REQUESTS_FORWARDED) + d.counter(REQUESTS_NO_ROUTE),
                "every request has exactly one outcome: " + d.counters());
        assertEquals(d.counter(RESPONSES_RECEIVED), d.counter(RESPONSES_MALFORMED)
                + d.counter(RESPONSES_DUPLICATE) + d.counter(RESPONSES_RELAYED) + d.counter(RESPONSES_ACCEPTED)
                + d.counter(RESPONSES_PROOF_FAILED) + d.counter(RESPONSES_IDENTITY_MISS)
                + d.counter(DiscoveryCounter.RESPONSES_NO_ROUTE),
                "every response has exactly one outcome: " + d.counters());
        assertEquals(lookups, d.counter(LOOKUPS_STARTED) + d.counter(LOOKUPS_ALREADY_PENDING)
                + d.counter(LOOKUPS_BACKOFF_SUPPRESSED) + d.counter(LOOKUPS_NOT_IN_FILTERS)
                + d.counter(LOOKUPS_NO_TREE_PEER));
        assertTrue(d.counter(REQUESTS_MALFORMED) > 0 && d.counter(RESPONSES_MALFORMED) > 0
                && d.counter(OTHER_MESSAGES) > 0, "the fuzzer reached the drop paths: " + d.counters());
        assertTrue(d.counter(REQUESTS_FORWARDED) + d.counter(REQUESTS_FOR_US) > 0
                && d.counter(RESPONSES_ACCEPTED) + d.counter(RESPONSES_RELAYED) > 0,
                "and the accepting paths: " + d.counters());
        assertTrue(d.recentRequestCount() <= DiscoveryConfig.DEFAULT_MAX_RECENT_REQUESTS);
    }

    private static byte[] randomBytes(final Random rnd) {
        final byte[] b = new byte[rnd.nextInt(200)];
        rnd.nextBytes(b);
        if (b.length > 0 && rnd.nextInt(3) > 0) {
            b[0] = (byte) (rnd.nextBoolean() ? 0x30 : 0x31);
        }
        return b;
    }

    private static byte[] randomSig(final Random rnd) {
        final byte[] s = new byte[64];
        rnd.nextBytes(s);
        return s;
    }

    /** Leaves the message intact half of the time; otherwise flips bytes, truncates or extends it. */
    private static byte[] mutate(final Random rnd, final byte[] msg) {
        switch (rnd.nextInt(6)) {
            case 0 -> {
                final byte[] b = msg.clone();
                for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                    b[rnd.nextInt(b.length)] ^= (byte) (1 + rnd.nextInt(255));
                }
                return b;
            }
            case 1 -> {
                return Arrays.copyOf(msg, rnd.nextInt(msg.length));
            }
            case 2 -> {
                final byte[] b = Arrays.copyOf(msg, msg.length + 1 + rnd.nextInt(40));
                for (int i = msg.length; i < b.length; i++) {
                    b[i] = (byte) rnd.nextInt();
                }
                return b;
            }
            default -> {
                return msg;
            }
        }
    }
}
