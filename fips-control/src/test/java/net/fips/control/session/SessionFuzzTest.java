package net.fips.control.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.MtuExceeded;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.PathBroken;

/**
 * Seeded, bounded fuzzing of the session handlers: random and garbled FSP messages (and inner plaintexts) in every
 * state. Every message must be counted, nothing may throw, and no garbage may establish or tear down a session.
 */
final class SessionFuzzTest {
    private static final int ROUNDS = 1500;

    private enum Start { NONE, INITIATING, AWAITING_MSG3, ESTABLISHED, REKEYING }

    private static long total(final Sessions s) {
        long t = 0;
        for (final SessionCounter c : SessionCounter.values()) {
            t += s.counter(c);
        }
        return t;
    }

    /** Node 0 is the peer (its captured messages are the mutation corpus); node 1 is fuzzed. */
    private static SessionBus start(final Start st, final long seed, final List<byte[]> corpus) {
        final SessionBus bus = new SessionBus(2, seed).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.knows(b);
        b.knows(a);
        switch (st) {
            case NONE -> {
                bus.drop = d -> true;
                a.sessions.initiate(b.addr, bus.now);
                bus.drain();
                a.sessions.remove(b.addr, bus.now);
            }
            case INITIATING -> {
                bus.drop = d -> true;
                b.sessions.initiate(a.addr, bus.now);
                a.sessions.initiate(b.addr, bus.now);
                bus.drain();
            }
            case AWAITING_MSG3 -> {
                bus.drop = d -> d.to() == 1 && (d.dg().payload()[0] & 0x0F) == 3;
                a.sessions.initiate(b.addr, bus.now);
                bus.drain();
            }
            case ESTABLISHED, REKEYING -> {
                a.sessions.initiate(b.addr, bus.now);
                bus.drain();
                if (st == Start.REKEYING) {
                    bus.drop = d -> d.to() == 1 && (d.dg().payload()[0] & 0x0F) == 3;
                    a.sessions.noteSendCounter(b.addr, 1 << 20);
                    bus.advance(SessionBus.S);
                }
            }
        }
        for (final var dg : a.sent) {
            corpus.add(dg.payload());
        }
        for (final var dg : b.sent) {
            corpus.add(dg.payload());
        }
        final NodeAddr r = NodeAddr.of(42, 43);
        corpus.add(new CoordsRequired(b.addr, r).encode());
        corpus.add(new PathBroken(b.addr, r, Coords.of(a.addr)).encode());
        corpus.add(new MtuExceeded(b.addr, r, 1280).encode());
        corpus.add(new CoordsRequired(a.addr, r).encode());
        bus.drop = d -> false;
        return bus;
    }

    private static byte[] garble(final Random rnd, final List<byte[]> corpus) {
        return switch (rnd.nextInt(5)) {
            case 0 -> {
                final byte[] m = new byte[rnd.nextInt(200)];
                rnd.nextBytes(m);
                if (m.length > 0) {
                    m[0] = (byte) rnd.nextInt(16); // version 0, any phase
                }
                if (m.length > 1 && rnd.nextBoolean()) {
                    m[1] = (byte) FspFlags.U;
                }
                yield m;
            }
            case 1 -> {
                final byte[] src = corpus.get(rnd.nextInt(corpus.size()));
                yield Arrays.copyOf(src, rnd.nextInt(src.length + 1));
            }
            case 2 -> {
                final byte[] m = corpus.get(rnd.nextInt(corpus.size())).clone();
                final int flips = 1 + rnd.nextInt(4);
                for (int i = 0; i < flips; i++) {
                    m[rnd.nextInt(m.length)] ^= (byte) (1 << rnd.nextInt(8));
                }
                yield m;
            }
            case 3 -> {
                final byte[] src = corpus.get(rnd.nextInt(corpus.size()));
                final byte[] m = Arrays.copyOf(src, src.length + 1 + rnd.nextInt(40));
                for (int i = src.length; i < m.length; i++) {
                    m[i] = (byte) rnd.nextInt(256);
                }
                yield m;
            }
            default -> corpus.get(rnd.nextInt(corpus.size())).clone(); // replays
        };
    }

    @Test
    void garbageInEveryStateIsCountedAndHarmless() {
        for (final Start st : Start.values()) {
            final List<byte[]> corpus = new ArrayList<>();
            final SessionBus bus = start(st, 100 + st.ordinal(), corpus);
            final SessionBus.Node a = bus.node(0);
            final SessionBus.Node b = bus.node(1);
            final boolean wasEstablished = b.sessions.state(a.addr) == SessionState.ESTABLISHED;
            final int establishedBefore = b.events.established.size();
            final Random rnd = new Random(st.ordinal() * 7919L + 1);
            bus.drop = d -> d.to() == 1;
            for (int i = 0; i < ROUNDS; i++) {
                final byte[] m = garble(rnd, corpus);
                final long before = total(b.sessions);
                final NodeAddr src = rnd.nextInt(8) == 0 ? NodeAddr.of(rnd.nextLong(), rnd.nextLong()) : a.addr;
                b.sessions.onFspMessage(src, m, bus.now);
                assertTrue(total(b.sessions) > before, st + ": message " + i + " left no count");
                if (rnd.nextInt(4) == 0) {
                    final byte[] inner = rnd.nextBoolean() ? FspInnerHeader.prepend(rnd.nextInt(),
                            0x10 + rnd.nextInt(6), rnd.nextInt(256), new byte[rnd.nextInt(70)])
                            : Arrays.copyOf(m, Math.min(m.length, rnd.nextInt(12)));
                    b.sessions.onInnerMessage(a.addr, inner, bus.now);
                }
                // whatever B answers goes to A, whose handlers must cope as well; A's genuine replies are not fed
                // back, so anything B establishes came from the fuzz input
                bus.drain();
                if (i % 100 == 0) {
                    bus.advance(SessionBus.S / 2);
                }
            }
            assertTrue(b.sessions.counter(SessionCounter.MALFORMED)
                    + b.sessions.counter(SessionCounter.BAD_HANDSHAKE_LENGTH)
                    + b.sessions.counter(SessionCounter.HANDSHAKE_FAILED) > ROUNDS / 10, st + ": drops counted");
            if (wasEstablished) {
                assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr), st + ": garbage closed a session");
                assertEquals(establishedBefore, b.events.established.size());
                assertTrue(b.events.closed.isEmpty(), st + ": " + b.events.closed);
            }
            assertEquals(0, b.sessions.counter(SessionCounter.INTERNAL_ERROR), st + ": a handler threw");
            assertEquals(0, a.sessions.counter(SessionCounter.INTERNAL_ERROR), st + ": the peer's handler threw");
            // only the replayed (genuine) rekey msg3 of the REKEYING start may complete a generation
            assertTrue(b.events.rekeyPending.isEmpty() || st == Start.REKEYING, st + ": garbage produced keys");
            if (!wasEstablished) {
                assertTrue(b.events.established.size() <= establishedBefore + (st == Start.AWAITING_MSG3 ? 1 : 0),
                        st + ": garbage established a session");
            }
        }
    }
}
