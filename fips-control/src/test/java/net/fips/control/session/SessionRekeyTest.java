package net.fips.control.session;

import static net.fips.control.session.SessionBus.S;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.FspPrefix;

/** Session rekey (spec routing-session §5.7): timing, jitter, pending generation, K-bit cutover, drain. */
final class SessionRekeyTest {

    private static SessionBus established(final long seed) {
        final SessionBus bus = new SessionBus(2, seed).link(0, 1);
        bus.node(0).knows(bus.node(1));
        bus.node(0).sessions.initiate(bus.node(1).addr, bus.now);
        bus.drain();
        assertEquals(SessionState.ESTABLISHED, bus.node(1).sessions.state(bus.node(0).addr));
        return bus;
    }

    /** One second of traffic: both ends see data; the data plane reports frames on pending keys after cutover. */
    private static void second(final SessionBus bus) {
        bus.advance(S);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.sessions.noteDataActivity(b.addr, bus.now);
        b.sessions.noteDataActivity(a.addr, bus.now);
        // whoever has cut over now sends with the new keys; the peer authenticates them with its pending keys
        if (a.events.cutovers.size() > b.events.cutovers.size()) {
            b.sessions.onPendingKeysAuthenticated(a.addr, bus.now);
            a.sessions.onPendingKeysAuthenticated(b.addr, bus.now);
        } else if (b.events.cutovers.size() > a.events.cutovers.size()) {
            a.sessions.onPendingKeysAuthenticated(b.addr, bus.now);
            b.sessions.onPendingKeysAuthenticated(a.addr, bus.now);
        }
    }

    @Test
    void rekeyAfterAboutTwoMinutesWithKBitCutoverAndDrain() {
        for (long seed = 30; seed < 33; seed++) {
            final SessionBus bus = established(seed);
            final SessionBus.Node a = bus.node(0);
            final SessionBus.Node b = bus.node(1);
            final long t0 = bus.now;
            int elapsed = 0;
            while (a.events.rekeyPending.isEmpty() && elapsed < 200) {
                second(bus);
                elapsed++;
            }
            assertTrue(elapsed >= 105 && elapsed <= 136, "rekey at 120 s ± 15 s, was " + elapsed);
            assertEquals(1, b.events.rekeyPending.size());
            final SessionKeys pa = a.events.rekeyPending.getFirst();
            final SessionKeys pb = b.events.rekeyPending.getFirst();
            assertTrue(pa.keyEpoch() && pb.keyEpoch(), "the new generation carries K = 1");
            assertArrayEquals(pa.sendKey(), pb.recvKey());
            assertArrayEquals(pa.recvKey(), pb.sendKey());
            assertFalse(Arrays.equals(pa.sendKey(), a.events.established.getFirst().sendKey()));
            assertTrue(pa.initiator() != pb.initiator());
            // the rekey initiator cuts over on its 2 s timer, the responder when the new keys authenticate
            for (int i = 0; i < 3; i++) {
                second(bus);
            }
            assertEquals(1, a.events.cutovers.size());
            assertEquals(1, b.events.cutovers.size());
            assertTrue(a.sessions.snapshot(b.addr).keyEpoch());
            assertTrue(b.sessions.snapshot(a.addr).keyEpoch());
            assertFalse(a.sessions.snapshot(b.addr).rekeyInProgress());
            // previous keys drain 10 s after cutover
            assertTrue(a.events.previousExpired.isEmpty());
            for (int i = 0; i < 11; i++) {
                second(bus);
            }
            assertEquals(1, a.events.previousExpired.size());
            assertEquals(1, b.events.previousExpired.size());
            // a second cycle flips K back
            while (a.events.rekeyPending.size() < 2 && bus.now - t0 < 400 * S) {
                second(bus);
            }
            for (int i = 0; i < 3; i++) {
                second(bus);
            }
            assertEquals(2, a.events.cutovers.size());
            assertFalse(a.sessions.snapshot(b.addr).keyEpoch());
            assertFalse(b.sessions.snapshot(a.addr).keyEpoch());
            assertEquals(1, a.events.established.size(), "rekey never re-establishes");
            assertTrue(a.events.closed.isEmpty() && b.events.closed.isEmpty());
        }
    }

    @Test
    void messageCountTriggersRekey() {
        final SessionBus bus = established(34);
        final SessionBus.Node a = bus.node(0);
        a.sessions.noteSendCounter(bus.node(1).addr, 65_535);
        second(bus);
        assertEquals(0, a.sessions.counter(SessionCounter.REKEYS_STARTED));
        a.sessions.noteSendCounter(bus.node(1).addr, 65_536);
        second(bus);
        assertEquals(1, a.sessions.counter(SessionCounter.REKEYS_STARTED));
        assertEquals(1, a.events.rekeyPending.size());
        assertEquals(1, bus.node(1).sessions.counter(SessionCounter.REKEYS_ANSWERED));
    }

    @Test
    void peerRekeyDampensOwnRekey() {
        final SessionBus bus = established(35);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.sessions.noteSendCounter(b.addr, 70_000);
        second(bus);
        assertEquals(1, b.sessions.counter(SessionCounter.REKEYS_ANSWERED));
        for (int i = 0; i < 3; i++) {
            second(bus);
        }
        assertEquals(1, b.events.cutovers.size());
        // B hits its own message trigger on the new generation: dampened for 30 s after the peer's rekey
        b.sessions.noteSendCounter(a.addr, 70_000);
        for (int i = 0; i < 26; i++) {
            second(bus);
        }
        assertEquals(0, b.sessions.counter(SessionCounter.REKEYS_STARTED));
        for (int i = 0; i < 3; i++) {
            second(bus);
        }
        assertEquals(1, b.sessions.counter(SessionCounter.REKEYS_STARTED));
    }

    @Test
    void lostRekeyMsg3IsResent() {
        final SessionBus bus = established(36);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        final int[] n = {0};
        bus.drop = d -> SessionBus.phase(d) == FspPrefix.PHASE_MSG3 && n[0]++ == 0;
        a.sessions.noteSendCounter(b.addr, 70_000);
        second(bus);
        assertEquals(1, a.events.rekeyPending.size());
        assertTrue(b.events.rekeyPending.isEmpty());
        bus.advance(S); // msg3 re-sent at +1 s
        assertEquals(1, b.events.rekeyPending.size());
        assertArrayEquals(a.events.rekeyPending.getFirst().sendKey(), b.events.rekeyPending.getFirst().recvKey());
    }

    @Test
    void simultaneousRekeySmallerAddressWins() {
        final SessionBus bus = established(37);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.sessions.noteSendCounter(b.addr, 70_000);
        b.sessions.noteSendCounter(a.addr, 70_000);
        second(bus);
        assertEquals(1, a.events.rekeyPending.size());
        assertEquals(1, b.events.rekeyPending.size());
        final boolean aSmaller = a.addr.compareTo(b.addr) < 0;
        assertEquals(aSmaller, a.events.rekeyPending.getFirst().initiator());
        assertArrayEquals(a.events.rekeyPending.getFirst().sendKey(), b.events.rekeyPending.getFirst().recvKey());
    }

    @Test
    void rekeyDisabledReplacesSessionOnNewSetup() {
        final SessionBus bus = new SessionBus(2, 38, SessionConfig.defaults().withRekeyEnabled(false)).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.knows(b);
        a.sessions.initiate(b.addr, bus.now);
        bus.drain();
        for (int i = 0; i < 200; i++) {
            second(bus);
        }
        assertEquals(0, a.sessions.counter(SessionCounter.REKEYS_STARTED));
        // a restarted A (same key, fresh state) sets up again: B replaces its session
        a.sessions.remove(b.addr, bus.now);
        a.sessions.initiate(b.addr, bus.now);
        bus.drain();
        assertEquals(2, b.events.established.size());
        assertTrue(b.events.closed.contains("REPLACED"));
        assertArrayEquals(a.events.established.get(1).sendKey(), b.events.established.get(1).recvKey());
    }

    @Test
    void useOfPreviousKeysExtendsTheDrain() {
        final SessionBus bus = established(39);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.sessions.noteSendCounter(b.addr, 70_000);
        for (int i = 0; i < 3; i++) {
            second(bus);
        }
        assertEquals(1, a.events.cutovers.size());
        // a late frame on the old keys 8 s after cutover keeps them for another 10 s
        for (int i = 0; i < 8; i++) {
            second(bus);
        }
        a.sessions.onPreviousKeysUsed(b.addr, bus.now);
        for (int i = 0; i < 9; i++) {
            second(bus);
        }
        assertTrue(a.events.previousExpired.isEmpty());
        second(bus);
        second(bus);
        assertEquals(1, a.events.previousExpired.size());
    }
}
