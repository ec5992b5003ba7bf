package net.fips.control.session;

import static net.fips.control.session.SessionBus.MS;
import static net.fips.control.session.SessionBus.S;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.noise.NoiseException;
import net.fips.control.noise.TransportSession;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.FspCpCoords;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.FspPrefix;
import net.fips.dataplane.wire.MtuExceeded;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.PathBroken;
import net.fips.dataplane.wire.PathMtuNotification;
import net.fips.dataplane.wire.SessionMessageType;
import net.fips.control.identity.TestIdentities;

/** The session state machine, ported from the reference's session scenarios, over an in-test bus. */
final class SessionsTest {
    private static final byte[] PKT = {1, 2, 3, 4};

    private static SessionConfig noRekey() {
        return SessionConfig.defaults().withRekeyEnabled(false);
    }

    /** Seals a DataPacket with {@code keys} as the data plane would and opens it with {@code peer}'s keys. */
    private static byte[] roundTrip(final SessionKeys keys, final SessionKeys peer, final byte[] payload)
            throws NoiseException {
        final TransportSession tx = new TransportSession(keys.sendKey(), keys.recvKey());
        final TransportSession rx = new TransportSession(peer.sendKey(), peer.recvKey());
        final byte[] body = new byte[4 + payload.length];
        body[0] = 0;
        body[1] = 1;
        body[2] = 0;
        body[3] = 1;
        System.arraycopy(payload, 0, body, 4, payload.length);
        final byte[] inner = FspInnerHeader.prepend(0, SessionMessageType.DATA_PACKET.code(), 0, body);
        final long ctr = tx.nextSendCounter();
        final byte[] hdr = FspHeader.build(ctr, 0, inner.length);
        final byte[] ct = tx.encrypt(hdr, inner);
        return rx.decrypt(ctr, hdr, ct);
    }

    private static SessionBus established(final SessionConfig cfg) {
        final SessionBus bus = new SessionBus(2, 7, cfg).link(0, 1);
        bus.node(0).knows(bus.node(1));
        assertEquals(SendResult.INITIATED, bus.node(0).sessions.send(bus.node(1).addr, PKT, bus.now));
        bus.drain();
        assertEquals(SessionState.ESTABLISHED, bus.node(0).sessions.state(bus.node(1).addr));
        assertEquals(SessionState.ESTABLISHED, bus.node(1).sessions.state(bus.node(0).addr));
        return bus;
    }

    @Test
    void directHandshakeAndFirstData() throws Exception {
        final SessionBus bus = new SessionBus(2, 1).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.coords = Coords.of(a.addr, b.addr);
        a.knows(b);
        assertEquals(SendResult.INITIATED, a.sessions.send(b.addr, PKT, bus.now));
        assertEquals(SessionState.INITIATING, a.sessions.state(b.addr));
        assertEquals(1, a.sessions.queuedCount(b.addr));
        bus.drain();
        assertEquals(3, bus.delivered.size(), "setup, ack, msg3");
        assertEquals(List.of(FspPrefix.PHASE_MSG1, FspPrefix.PHASE_MSG2, FspPrefix.PHASE_MSG3),
                bus.delivered.stream().map(SessionBus::phase).toList());
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(b.addr));
        assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
        final SessionKeys ka = a.events.established.getFirst();
        final SessionKeys kb = b.events.established.getFirst();
        assertTrue(ka.initiator());
        assertFalse(kb.initiator());
        assertArrayEquals(ka.sendKey(), kb.recvKey());
        assertArrayEquals(ka.recvKey(), kb.sendKey());
        assertArrayEquals(b.identity.compressedPublicKey(), ka.remoteStatic());
        assertArrayEquals(a.identity.compressedPublicKey(), kb.remoteStatic());
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 2}, ka.remoteEpoch());
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 1}, kb.remoteEpoch());
        assertFalse(ka.keyEpoch());
        // the queued packet is flushed, the responder learned the initiator's identity and coordinate
        assertArrayEquals(PKT, a.events.flushed.get(b.addr).getFirst());
        assertEquals(0, a.sessions.queuedCount(b.addr));
        assertNotNull(b.identities.lookup(a.addr, bus.now));
        assertEquals(a.coords, b.coordCache.get(a.addr));
        assertEquals(b.coords, a.coordCache.get(b.addr));
        // first data: the derived keys interoperate in both directions
        final byte[] plain = roundTrip(ka, kb, "hello".getBytes());
        b.sessions.onInnerMessage(a.addr, plain, bus.now);
        assertEquals("hello", new String(plain, 10, 5));
        assertTrue(new String(roundTrip(kb, ka, "back".getBytes()), 10, 4).equals("back"));
        assertEquals(SendResult.ESTABLISHED, a.sessions.send(b.addr, PKT, bus.now));
        assertEquals(1, a.sessions.counter(SessionCounter.ESTABLISHED));
        assertEquals(1, b.sessions.counter(SessionCounter.ESTABLISHED));
    }

    @Test
    void threeNodeForwardedHandshake() throws Exception {
        final SessionBus bus = new SessionBus(3, 2).link(0, 1).link(1, 2);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node c = bus.node(2);
        a.knows(c);
        assertEquals(SendResult.INITIATED, a.sessions.send(c.addr, PKT, bus.now));
        bus.drain();
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(c.addr));
        assertEquals(SessionState.ESTABLISHED, c.sessions.state(a.addr));
        assertEquals(3, bus.node(1).transited, "all three handshake messages crossed the transit node");
        assertEquals(0, bus.node(1).sessions.sessionCount());
        assertTrue(bus.delivered.stream().allMatch(d -> d.hops() == 2));
        assertEquals("x", new String(roundTrip(a.events.established.getFirst(),
                c.events.established.getFirst(), "x".getBytes()), 10, 1));
        // a destination without a cached coordinate gets our own as dest_coords (never empty)
        assertEquals(a.coords, c.coordCache.get(a.addr));
    }

    @Test
    void initiateIsIdempotent() {
        final SessionBus bus = new SessionBus(2, 3).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        a.knows(bus.node(1));
        assertEquals(Sessions.InitiateResult.STARTED, a.sessions.initiate(bus.node(1).addr, bus.now));
        assertEquals(Sessions.InitiateResult.ALREADY_EXISTS, a.sessions.initiate(bus.node(1).addr, bus.now));
        assertEquals(1, a.sent.size());
        assertEquals(1, a.sessions.sessionCount());
    }

    @Test
    void sendWithoutSessionQueuesOrRefuses() {
        final SessionBus bus = new SessionBus(2, 4);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        // unknown identity: nothing stored
        assertEquals(SendResult.NO_IDENTITY, a.sessions.send(b.addr, PKT, bus.now));
        assertEquals(0, a.sessions.sessionCount());
        assertEquals(0, a.sessions.queuedDestinations());
        // known identity, no route: queued, lookup requested, no session stored
        a.knows(b);
        assertEquals(SendResult.LOOKUP_REQUESTED, a.sessions.send(b.addr, PKT, bus.now));
        assertEquals(SendResult.LOOKUP_REQUESTED, a.sessions.send(b.addr, PKT, bus.now));
        assertEquals(0, a.sessions.sessionCount());
        assertEquals(2, a.sessions.queuedCount(b.addr));
        assertEquals(List.of(b.addr, b.addr), a.events.lookups);
        // the route appears: onRouteFound retries and the queue is flushed once established
        bus.link(0, 1);
        a.sessions.onRouteFound(b.addr, bus.now);
        assertEquals(SessionState.INITIATING, a.sessions.state(b.addr));
        assertEquals(SendResult.QUEUED, a.sessions.send(b.addr, PKT, bus.now));
        bus.drain();
        assertEquals(3, a.events.flushed.get(b.addr).size());
        // discovery failure with no session hands back the queue
        final SessionBus bus2 = new SessionBus(2, 4);
        bus2.node(0).knows(bus2.node(1));
        bus2.node(0).sessions.send(bus2.node(1).addr, PKT, bus2.now);
        assertEquals(1, bus2.node(0).sessions.onUnreachable(bus2.node(1).addr, bus2.now).size());
        assertEquals(0, bus2.node(0).sessions.queuedDestinations());
    }

    @Test
    void ackForUnknownSessionIsDropped() {
        final SessionBus bus = new SessionBus(3, 5).link(0, 1);
        bus.node(0).knows(bus.node(1));
        bus.drop = d -> SessionBus.phase(d) == FspPrefix.PHASE_MSG2;
        bus.node(0).sessions.initiate(bus.node(1).addr, bus.now);
        bus.drain();
        final byte[] ack = bus.node(1).sent.getFirst().payload();
        final Sessions c = bus.node(2).sessions;
        assertTrue(c.onFspMessage(bus.node(1).addr, ack, bus.now));
        assertEquals(1, c.counter(SessionCounter.ACK_UNKNOWN_SESSION));
        assertEquals(0, c.sessionCount());
        assertTrue(bus.node(2).events.established.isEmpty());
        assertTrue(bus.node(2).sent.isEmpty());
    }

    @Test
    void simultaneousOpenSmallerAddressStaysInitiator() throws Exception {
        for (long seed = 10; seed < 14; seed++) {
            final SessionBus bus = new SessionBus(2, seed).link(0, 1);
            final SessionBus.Node a = bus.node(0);
            final SessionBus.Node b = bus.node(1);
            a.knows(b);
            b.knows(a);
            assertEquals(SendResult.INITIATED, a.sessions.send(b.addr, PKT, bus.now));
            assertEquals(SendResult.INITIATED, b.sessions.send(a.addr, PKT, bus.now));
            bus.drain();
            assertEquals(SessionState.ESTABLISHED, a.sessions.state(b.addr));
            assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
            assertEquals(1, a.events.established.size());
            assertEquals(1, b.events.established.size());
            final boolean aSmaller = a.addr.compareTo(b.addr) < 0;
            assertEquals(aSmaller, a.events.established.getFirst().initiator());
            assertEquals(!aSmaller, b.events.established.getFirst().initiator());
            final SessionBus.Node small = aSmaller ? a : b;
            final SessionBus.Node large = aSmaller ? b : a;
            assertEquals(1, small.sessions.counter(SessionCounter.SIMULTANEOUS_KEPT_INITIATOR));
            assertEquals(1, large.sessions.counter(SessionCounter.SIMULTANEOUS_BECAME_RESPONDER));
            // both queued packets survive the role change
            assertEquals(1, a.events.flushed.get(b.addr).size());
            assertEquals(1, b.events.flushed.get(a.addr).size());
            assertEquals("ok", new String(roundTrip(a.events.established.getFirst(),
                    b.events.established.getFirst(), "ok".getBytes()), 10, 2));
        }
    }

    @Test
    void duplicateSetupResendsStoredAck() {
        final SessionBus bus = new SessionBus(2, 6).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.knows(b);
        final int[] acks = {0};
        bus.drop = d -> SessionBus.phase(d) == FspPrefix.PHASE_MSG2 && acks[0]++ == 0;
        a.sessions.initiate(b.addr, bus.now);
        bus.drain();
        assertEquals(SessionState.AWAITING_MSG3, b.sessions.state(a.addr));
        // A re-sends its Setup at +1 s; B answers with the stored Ack (and its own timer also re-sends it)
        bus.advance(S);
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(b.addr));
        assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
        assertEquals(1, b.sessions.counter(SessionCounter.DUPLICATE_SETUP_ACK_RESENT));
        assertEquals(1, b.sessions.counter(SessionCounter.ACKS_SENT), "one Ack made; the rest are the stored bytes");
        final byte[] first = b.sent.getFirst().payload();
        for (final var dg : b.sent) {
            assertArrayEquals(first, dg.payload());
        }
        assertArrayEquals(a.events.established.getFirst().sendKey(), b.events.established.getFirst().recvKey());
    }

    @Test
    void newSetupReplacesAwaitingMsg3() {
        // §10.15: a Setup with a different msg1 (restarted initiator) is answered afresh, not with the old Ack
        final SessionBus bus = new SessionBus(2, 8).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.knows(b);
        bus.drop = d -> d.from() == 1;
        a.sessions.initiate(b.addr, bus.now);
        bus.drain();
        a.sessions.remove(b.addr, bus.now);
        bus.drop = d -> false;
        a.sessions.initiate(b.addr, bus.now);
        bus.drain();
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(b.addr));
        assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
        assertEquals(List.of("REPLACED"), b.events.closed);
    }

    @Test
    void initiatingTimesOutAfterThirtySecondsWithItsQueue() {
        final SessionBus bus = new SessionBus(2, 9).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        a.knows(bus.node(1));
        bus.drop = d -> true;
        final long t0 = bus.now;
        a.sessions.send(bus.node(1).addr, PKT, t0);
        a.sessions.tick(t0 + 30 * S);
        assertEquals(SessionState.INITIATING, a.sessions.state(bus.node(1).addr));
        a.sessions.tick(t0 + 30 * S + 1);
        assertNull(a.sessions.state(bus.node(1).addr));
        assertEquals(0, a.sessions.queuedCount(bus.node(1).addr), "pending packets are cleaned up");
        assertEquals(List.of("HANDSHAKE_TIMEOUT"), a.events.closed);
        assertEquals(1, a.sessions.counter(SessionCounter.QUEUE_DISCARDED));
    }

    @Test
    void awaitingMsg3TimesOut() {
        final SessionBus bus = new SessionBus(2, 10).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.knows(b);
        bus.drop = d -> SessionBus.phase(d) == FspPrefix.PHASE_MSG3;
        final long t0 = bus.now;
        a.sessions.initiate(b.addr, t0);
        bus.drain();
        assertEquals(SessionState.AWAITING_MSG3, b.sessions.state(a.addr));
        b.sessions.tick(t0 + 30 * S);
        assertEquals(SessionState.AWAITING_MSG3, b.sessions.state(a.addr));
        b.sessions.tick(t0 + 30 * S + 1);
        assertNull(b.sessions.state(a.addr));
        assertEquals(List.of("HANDSHAKE_TIMEOUT"), b.events.closed);
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(b.addr));
    }

    @Test
    void resendScheduleOneSecondDoublingMaxFive() {
        final SessionConfig cfg = new SessionConfig(90 * S, 100 * S, S, 5, 16, 256, 5, 2000 * MS, 64, false,
                120 * S, 15 * S, 65_536, 30 * S, 2000 * MS, 10 * S);
        final SessionBus bus = new SessionBus(2, 11, cfg).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        a.knows(bus.node(1));
        final List<Long> times = new ArrayList<>();
        final long t0 = bus.now;
        bus.drop = d -> {
            times.add((bus.now - t0) / S);
            return true;
        };
        a.sessions.initiate(bus.node(1).addr, t0);
        bus.drain();
        bus.runSeconds(60);
        assertEquals(List.of(0L, 1L, 3L, 7L, 15L, 31L), times);
        assertEquals(5, a.sessions.snapshot(bus.node(1).addr).resendCount());
        // every transmission is the same Setup
        for (final var dg : a.sent) {
            assertArrayEquals(a.sent.getFirst().payload(), dg.payload());
        }
    }

    @Test
    void defaultTimeoutAllowsFourResends() {
        final SessionBus bus = new SessionBus(2, 12, noRekey()).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        a.knows(bus.node(1));
        bus.drop = d -> true;
        a.sessions.initiate(bus.node(1).addr, bus.now);
        bus.runSeconds(40);
        assertEquals(5, a.sent.size(), "setup at 0, resends at 1, 3, 7, 15; deleted after 30 s");
        assertEquals(0, a.sessions.sessionCount());
    }

    @Test
    void idlePurgeRemovesExpiredKeepsActive() {
        final SessionBus bus = established(noRekey());
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        // B's side is kept alive by data; A's is not
        for (int i = 0; i < 91; i++) {
            bus.advance(S);
            b.sessions.noteDataActivity(a.addr, bus.now);
        }
        assertNull(a.sessions.state(b.addr));
        assertEquals(List.of("IDLE"), a.events.closed);
        assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
        assertEquals(1, a.sessions.counter(SessionCounter.IDLE_EXPIRED));
        assertEquals(0, a.sessions.queuedDestinations());
    }

    @Test
    void idlePurgeBoundaryAndInitiatingIgnored() {
        final SessionConfig cfg = new SessionConfig(10 * S, 30 * S, S, 5, 16, 256, 5, 2000 * MS, 64, false,
                120 * S, 15 * S, 65_536, 30 * S, 2000 * MS, 10 * S);
        final SessionBus bus = new SessionBus(3, 13, cfg).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        a.knows(bus.node(1));
        a.knows(bus.node(2));
        final long t0 = bus.now;
        a.sessions.send(bus.node(1).addr, PKT, t0);
        bus.drain();
        a.sessions.send(bus.node(2).addr, PKT, t0); // no route: no entry
        bus.link(0, 2);
        bus.drop = d -> d.to() == 2;
        a.sessions.initiate(bus.node(2).addr, t0);
        a.sessions.tick(t0 + 10 * S);
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(bus.node(1).addr));
        a.sessions.tick(t0 + 10 * S + 1);
        assertNull(a.sessions.state(bus.node(1).addr));
        assertEquals(SessionState.INITIATING, a.sessions.state(bus.node(2).addr), "idle timeout ignores handshakes");
        assertEquals(1, a.sessions.queuedCount(bus.node(2).addr));
    }

    @Test
    void idlePurgeDisabledAtZero() {
        final SessionBus bus = established(noRekey().withIdleTimeoutNanos(0));
        bus.node(0).sessions.tick(bus.now + 1_000_000 * S);
        assertEquals(SessionState.ESTABLISHED, bus.node(0).sessions.state(bus.node(1).addr));
    }

    @Test
    void mmpAndControlMessagesDoNotKeepSessionAlive() {
        final SessionBus bus = established(noRekey());
        final SessionBus.Node a = bus.node(0);
        final NodeAddr b = bus.node(1).addr;
        final long t0 = bus.now;
        for (int i = 1; i <= 91; i++) {
            final long t = t0 + i * S;
            a.sessions.onInnerMessage(b, FspInnerHeader.prepend(i, SessionMessageType.SENDER_REPORT.code(), 0,
                    new byte[46]), t);
            a.sessions.onInnerMessage(b, FspInnerHeader.prepend(i, SessionMessageType.COORDS_WARMUP.code(), 0,
                    new byte[0]), t);
            a.sessions.onInnerMessage(b, FspInnerHeader.prepend(i, SessionMessageType.PATH_MTU_NOTIFICATION.code(),
                    0, new PathMtuNotification(1400).encode()), t);
            a.sessions.tick(t);
        }
        assertNull(a.sessions.state(b));
        assertEquals(91, a.sessions.counter(SessionCounter.INNER_IGNORED));
    }

    @Test
    void dataPacketInnerMessageKeepsSessionAlive() {
        final SessionBus bus = established(noRekey());
        final SessionBus.Node a = bus.node(0);
        final NodeAddr b = bus.node(1).addr;
        for (int i = 1; i <= 200; i++) {
            if (i % 60 == 0) {
                a.sessions.onInnerMessage(b, FspInnerHeader.prepend(i, SessionMessageType.DATA_PACKET.code(), 0,
                        new byte[] {0, 1, 0, 1}), bus.now + i * S);
            }
            a.sessions.tick(bus.now + i * S);
        }
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(b));
    }

    @Test
    void pendingQueueLimits() {
        final SessionBus bus = new SessionBus(2, 14).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        a.knows(bus.node(1));
        bus.drop = d -> d.from() == 1 && SessionBus.phase(d) == FspPrefix.PHASE_MSG2;
        for (int i = 0; i < 20; i++) {
            a.sessions.send(bus.node(1).addr, new byte[] {(byte) i}, bus.now);
        }
        bus.drain();
        assertEquals(16, a.sessions.queuedCount(bus.node(1).addr));
        assertEquals(16, a.sessions.queuedPackets(), "show_routing.pending_tun_packets");
        assertEquals(4, a.sessions.counter(SessionCounter.QUEUE_OVERFLOW));
        bus.drop = d -> false;
        bus.advance(S);
        final List<byte[]> flushed = a.events.flushed.get(bus.node(1).addr);
        assertEquals(16, flushed.size());
        assertEquals(0, a.sessions.queuedPackets(), "flushed: nothing pending");
        for (int i = 0; i < 16; i++) {
            assertEquals(i + 4, flushed.get(i)[0], "oldest dropped, order kept");
        }
    }

    @Test
    void queueTableHoldsAtMost256Destinations() {
        final SessionConfig cfg = noRekey();
        final SessionBus bus = new SessionBus(1, 15, cfg);
        final SessionBus.Node a = bus.node(0);
        final Random rnd = new Random(99);
        final List<NodeAddr> dests = new ArrayList<>();
        for (int i = 0; i < 257; i++) {
            final var id = TestIdentities.random(rnd);
            a.identities.register(id.toPeer(), bus.now);
            dests.add(id.nodeAddr());
        }
        for (int i = 0; i < 256; i++) {
            assertEquals(SendResult.LOOKUP_REQUESTED, a.sessions.send(dests.get(i), PKT, bus.now));
        }
        assertEquals(SendResult.DROPPED, a.sessions.send(dests.get(256), PKT, bus.now));
        assertEquals(256, a.sessions.queuedDestinations());
        assertEquals(1, a.sessions.counter(SessionCounter.QUEUE_DESTINATIONS_FULL));
        // an existing destination still accepts packets
        assertEquals(SendResult.LOOKUP_REQUESTED, a.sessions.send(dests.get(0), PKT, bus.now));
        assertEquals(2, a.sessions.queuedCount(dests.get(0)));
        assertEquals(257, a.sessions.queuedPackets(), "256 destinations, one with two packets");
    }

    @Test
    void responderRejectsKeyThatDoesNotMatchSrcAddr() {
        final SessionBus bus = new SessionBus(3, 16).link(0, 1).link(1, 2);
        final SessionBus.Node mallory = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        final SessionBus.Node victim = bus.node(2);
        // Mallory claims the victim's address but can only prove her own key
        mallory.spoofAs = victim.addr;
        bus.unlink(1, 2);
        bus.byAddr.put(victim.addr, 0);
        mallory.knows(b);
        mallory.sessions.initiate(b.addr, bus.now);
        bus.drain();
        assertEquals(1, b.sessions.counter(SessionCounter.IDENTITY_MISMATCH));
        assertNull(b.sessions.state(victim.addr));
        assertNull(b.identities.lookup(victim.addr, bus.now), "no identity registered for the spoofed address");
        assertTrue(b.events.established.isEmpty());
        assertEquals(List.of("IDENTITY_MISMATCH"), b.events.closed);
    }

    @Test
    void msg3LossIsRecoveredByResendOnDuplicateAck() {
        final SessionBus bus = new SessionBus(2, 17).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.knows(b);
        final int[] n = {0};
        bus.drop = d -> SessionBus.phase(d) == FspPrefix.PHASE_MSG3 && n[0]++ == 0;
        a.sessions.initiate(b.addr, bus.now);
        bus.drain();
        assertEquals(SessionState.ESTABLISHED, a.sessions.state(b.addr));
        assertEquals(SessionState.AWAITING_MSG3, b.sessions.state(a.addr));
        bus.advance(S); // B re-sends its Ack; A answers with the same msg3
        assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
        assertEquals(1, a.sessions.counter(SessionCounter.MSG3_RESENT));
        assertEquals(1, a.events.established.size());
        assertArrayEquals(a.events.established.getFirst().sendKey(), b.events.established.getFirst().recvKey());
        // a later repeat of the Ack only re-sends msg3; it never disturbs the sessions
        assertTrue(a.sessions.onFspMessage(b.addr, b.sent.getFirst().payload(), bus.now));
        bus.drain();
        assertEquals(2, a.sessions.counter(SessionCounter.MSG3_RESENT));
        assertEquals(1, b.sessions.counter(SessionCounter.BAD_STATE), "msg3 for an established responder dropped");
        assertEquals(1, b.events.established.size());
        assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
    }

    @Test
    void duplicateSetupForEstablishedResponderIsIgnored() {
        final SessionBus bus = established(noRekey());
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        b.sessions.onFspMessage(a.addr, a.sent.getFirst().payload(), bus.now);
        assertEquals(1, b.sessions.counter(SessionCounter.DUPLICATE_SETUP_IGNORED));
        assertEquals(SessionState.ESTABLISHED, b.sessions.state(a.addr));
        assertTrue(b.events.closed.isEmpty());
    }

    @Test
    void warmupCounterAndErrorSignals() {
        final SessionBus bus = established(noRekey());
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        for (int i = 0; i < 5; i++) {
            final FspCpCoords cp = a.sessions.takeWarmupCoords(b.addr);
            assertNotNull(cp);
            assertEquals(a.coords, cp.src());
            assertEquals(b.coords, cp.dest());
        }
        assertNull(a.sessions.takeWarmupCoords(b.addr));
        final NodeAddr reporter = NodeAddr.of(0x1111, 0x2222);
        // CoordsRequired: warm-up requested, lookup, counter back to 5, cached coords kept
        a.sessions.onFspMessage(reporter, new CoordsRequired(b.addr, reporter).encode(), bus.now);
        assertEquals(List.of(b.addr), a.events.warmups);
        assertEquals(List.of(b.addr), a.events.lookups);
        assertEquals(5, a.sessions.snapshot(b.addr).warmupRemaining());
        assertNotNull(a.coordCache.get(b.addr));
        // PathBroken within 2 s: warm-up rate-limited, but coords dropped and lookup requested
        a.sessions.onFspMessage(reporter, new PathBroken(b.addr, reporter, Coords.EMPTY).encode(), bus.now + S);
        assertEquals(1, a.events.warmups.size());
        assertEquals(1, a.sessions.counter(SessionCounter.WARMUPS_RATE_LIMITED));
        assertNull(a.coordCache.get(b.addr));
        assertEquals(List.of(b.addr), a.forgotten);
        assertEquals(2, a.events.lookups.size());
        a.sessions.onFspMessage(reporter, new CoordsRequired(b.addr, reporter).encode(), bus.now + 2 * S);
        assertEquals(2, a.events.warmups.size());
        // MtuExceeded and PathMtuNotification clamp
        a.sessions.onFspMessage(reporter, new MtuExceeded(b.addr, reporter, 1200).encode(), bus.now);
        a.sessions.onInnerMessage(b.addr, FspInnerHeader.prepend(0, SessionMessageType.PATH_MTU_NOTIFICATION.code(),
                0, new PathMtuNotification(1100).encode()), bus.now);
        assertEquals(List.of(1200, 1100), a.events.pathMtus);
        // CoordsRequired for an unknown identity: no lookup
        final NodeAddr stranger = NodeAddr.of(5, 5);
        a.sessions.onFspMessage(reporter, new CoordsRequired(stranger, reporter).encode(), bus.now);
        assertEquals(3, a.events.lookups.size());
        assertEquals(5, a.sessions.counter(SessionCounter.ERROR_SIGNALS));
    }

    @Test
    void encryptedMessagesAreLeftToTheDataPlane() {
        final SessionBus bus = new SessionBus(1, 18);
        assertFalse(bus.node(0).sessions.onFspMessage(NodeAddr.of(1, 2), FspHeader.build(0, 0, 0), bus.now));
        assertEquals(1, bus.node(0).sessions.counter(SessionCounter.ENCRYPTED_NOT_HANDLED));
    }

    @Test
    void responderWithoutRouteBackStoresNothing() {
        final SessionBus bus = new SessionBus(2, 19).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        final SessionBus.Node b = bus.node(1);
        a.knows(b);
        bus.drop = d -> true;
        a.sessions.initiate(b.addr, bus.now);
        bus.drain();
        final byte[] setup = a.sent.getFirst().payload();
        bus.unlink(0, 1);
        b.sessions.onFspMessage(a.addr, setup, bus.now);
        assertNull(b.sessions.state(a.addr));
        assertEquals(1, b.sessions.counter(SessionCounter.NO_ROUTE));
        assertEquals(0, b.sessions.counter(SessionCounter.ACKS_SENT));
    }

    @Test
    void removeDeletesEntryAndQueue() {
        final SessionBus bus = new SessionBus(2, 20).link(0, 1);
        final SessionBus.Node a = bus.node(0);
        a.knows(bus.node(1));
        bus.drop = d -> true;
        a.sessions.send(bus.node(1).addr, PKT, bus.now);
        assertTrue(a.sessions.remove(bus.node(1).addr, bus.now));
        assertFalse(a.sessions.remove(bus.node(1).addr, bus.now));
        assertEquals(0, a.sessions.queuedDestinations());
        assertEquals(List.of("REMOVED"), a.events.closed);
    }
}
