package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

/**
 * One data plane in SHARED mode (driven by the test thread, manual clock) facing plain DatagramChannels that play
 * the peer with test-side framing ({@link FrameCodec}): every outcome is deterministic.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataPlaneRawFrameTest {
    private static final long LINK = 5;
    private static final int OUR = 0x10;
    private static final int THEIR = 0x20;
    private static final byte[] SEND_KEY = FrameCodec.key(11);
    private static final byte[] RECV_KEY = FrameCodec.key(12);
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    private final FrameCodec codec = new FrameCodec();
    private final Deliveries deliveries = new Deliveries();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<DataPlaneEvent> events = new ArrayList<>();
    private DatagramChannel peer;
    private DataPlane dp;
    private InetSocketAddress dpAddress;
    /** Slots of the data plane's pool, which also size its link frame hold. */
    private int poolSlots = 256;

    @BeforeEach
    void setUp() throws IOException {
        peer = channel();
    }

    @AfterEach
    void tearDown() throws IOException {
        if (dp != null) {
            dp.close();
        }
        peer.close();
    }

    private static DatagramChannel channel() throws IOException {
        final DatagramChannel ch = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        ch.configureBlocking(false);
        return ch;
    }

    private void start(final int eventQueueCapacity) throws IOException {
        start(eventQueueCapacity, 0);
    }

    /**
     * Starts the data plane and adds the link {@code handshakeMs} after the instant the control plane chose as its
     * session start (simulated handshake processing between promotion and the command).
     */
    private void start(final int eventQueueCapacity, final long handshakeMs) throws IOException {
        startWithoutLink(eventQueueCapacity);
        final long promoted = clock.get();
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(handshakeMs));
        addLink(promoted);
    }

    private void startWithoutLink(final int eventQueueCapacity) throws IOException {
        dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.SHARED).poolSlots(poolSlots)
                .eventQueueCapacity(eventQueueCapacity).localDelivery(deliveries).nanoClock(clock::get));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")));
        dp.start();
        dpAddress = dp.udpTransport(0).localAddress();
    }

    private void addLink(final long promoted) throws IOException {
        dp.addLink(new LinkSpec(LINK, 0, TransportAddr.ofInet((InetSocketAddress) peer.getLocalAddress()), OUR,
                THEIR, SEND_KEY, RECV_KEY, promoted));
    }

    /** An IK msg2 as the peer's responder writes it: sender_idx = theirs, receiver_idx = the index our msg1 named. */
    private static byte[] msg2(final int senderIdx, final int receiverIdx) {
        final ByteBuffer b = ByteBuffer.allocate(69).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x02).put((byte) 0).putShort((short) 65).putInt(senderIdx).putInt(receiverIdx);
        return b.array();
    }

    /** Runs the data plane until {@code condition} holds; fails after a generous deadline. */
    private void pumpUntil(final BooleanSupplier condition) {
        final long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            dp.doWork();
            if (System.nanoTime() - start > DEADLINE_NS) {
                fail("condition not reached; counters: " + counters());
            }
        }
        dp.drainEvents(events::add);
    }

    private void pumpUntil(final DataPlaneCounter counter, final long value) {
        pumpUntil(() -> dp.counter(counter) >= value);
        assertEquals(value, dp.counter(counter), counter.toString());
    }

    private String counters() {
        final StringBuilder sb = new StringBuilder();
        for (final DataPlaneCounter c : DataPlaneCounter.values()) {
            if (dp.counter(c) != 0) {
                sb.append(c).append('=').append(dp.counter(c)).append(' ');
            }
        }
        return sb.toString();
    }

    private void send(final DatagramChannel from, final byte[] packet) throws IOException {
        from.send(ByteBuffer.wrap(packet), dpAddress);
    }

    private byte[] frame(final byte[] key, final int flags, final int idx, final long counter, final long seq) {
        return codec.seal(key, flags, idx, counter, 7, Deliveries.bytes(seq, 100));
    }

    /** Pumps until the peer channel receives a datagram. */
    private byte[] receive(final DatagramChannel ch) throws IOException {
        return FrameCodec.receive(ch, 2048, this::pumpUntil);
    }

    private <T extends DataPlaneEvent> List<T> events(final Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void malformedReplayedTamperedAndUnknownFramesAreCountedDropsAndTwentyFailuresAreReported() throws Exception {
        start(64);
        send(peer, frame(RECV_KEY, 0, OUR, 0, 0));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 1);
        send(peer, frame(RECV_KEY, 0, OUR, 0, 0));
        pumpUntil(DataPlaneCounter.DROP_REPLAY, 1);
        final byte[] tampered = frame(RECV_KEY, 0, OUR, 1, 1);
        tampered[40] ^= 1;
        send(peer, tampered);
        pumpUntil(DataPlaneCounter.DROP_AUTH_FAILED, 1);
        final byte[] badHeader = frame(RECV_KEY, 0, OUR, 2, 2);
        badHeader[1] ^= 0x04;   // the header (here the SP flag) is authenticated too
        send(peer, badHeader);
        pumpUntil(DataPlaneCounter.DROP_AUTH_FAILED, 2);
        final byte[] badLength = frame(RECV_KEY, 0, OUR, 2, 2);
        badLength[2] ^= 1;   // payload_len disagrees with the frame: dropped before any crypto
        send(peer, badLength);
        pumpUntil(DataPlaneCounter.DROP_BAD_PAYLOAD_LEN, 1);
        send(peer, Arrays.copyOf(frame(RECV_KEY, 0, OUR, 3, 3), 31));
        pumpUntil(DataPlaneCounter.DROP_TRUNCATED, 1);
        send(peer, new byte[]{0, 0, 0});
        pumpUntil(DataPlaneCounter.DROP_RUNT, 1);
        send(peer, frame(RECV_KEY, 0, 0x99, 4, 4));
        pumpUntil(DataPlaneCounter.DROP_UNKNOWN_INDEX, 1);
        final byte[] phase3 = frame(RECV_KEY, 0, OUR, 5, 5);
        phase3[0] = 0x03;
        send(peer, phase3);
        pumpUntil(DataPlaneCounter.DROP_BAD_PHASE, 1);
        final byte[] version1 = frame(RECV_KEY, 0, OUR, 6, 6);
        version1[0] = 0x10;
        send(peer, version1);
        pumpUntil(DataPlaneCounter.DROP_BAD_VERSION, 1);
        // A frame sealed with the wrong key: authentication fails, nothing moves.
        send(peer, frame(SEND_KEY, 0, OUR, 7, 7));
        pumpUntil(DataPlaneCounter.DROP_AUTH_FAILED, 3);
        assertEquals(1, deliveries.delivered.get());
        assertEquals(0, dp.linkStats(LINK).highestCounterIn());
        assertEquals(3 + 1, dp.linkStats(LINK).dropsIn(), "3 auth failures + 1 replay");
        assertEquals(1, dp.linkStats(LINK).replayDrops(), "the replay, published on its own");
        assertEquals(3, dp.linkStats(LINK).consecutiveDecryptFailures());
        assertEquals(List.of(), events(DataPlaneEvent.TooManyDecryptFailures.class));

        // 3 consecutive failures so far; 17 more reach the limit of 20, a 21st does not report again.
        for (int i = 0; i < 18; i++) {
            final byte[] bad = frame(RECV_KEY, 0, OUR, 100 + i, 0);
            bad[bad.length - 1] ^= 1;
            send(peer, bad);
        }
        pumpUntil(DataPlaneCounter.DROP_AUTH_FAILED, 21);
        assertEquals(21, dp.linkStats(LINK).consecutiveDecryptFailures());
        assertEquals(List.of(new DataPlaneEvent.TooManyDecryptFailures(LINK)),
                events(DataPlaneEvent.TooManyDecryptFailures.class));
        assertNull(dp.agentFailure());
        assertEquals(0, deliveries.corrupt.get());
    }

    @Test
    void aSuccessResetsTheConsecutiveFailureCount() throws Exception {
        start(64);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 19; i++) {
                final byte[] bad = frame(RECV_KEY, 0, OUR, 1000 * round + i + 1, 0);
                bad[20] ^= 1;
                send(peer, bad);
            }
            pumpUntil(DataPlaneCounter.DROP_AUTH_FAILED, 19L * (round + 1));
            assertEquals(19, dp.linkStats(LINK).consecutiveDecryptFailures());
            send(peer, frame(RECV_KEY, 0, OUR, 1000 * round + 500, round));
            pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, round + 1);
            assertEquals(0, dp.linkStats(LINK).consecutiveDecryptFailures(), "published as reset");
        }
        assertEquals(List.of(), events(DataPlaneEvent.TooManyDecryptFailures.class));
    }

    @Test
    void anAuthenticatedFrameFromANewAddressRoamsTheLink() throws Exception {
        start(64);
        try (DatagramChannel elsewhere = channel()) {
            // Forged frames from elsewhere never move the link.
            final byte[] forged = frame(RECV_KEY, 0, OUR, 1, 1);
            forged[30] ^= 1;
            send(elsewhere, forged);
            pumpUntil(DataPlaneCounter.DROP_AUTH_FAILED, 1);
            assertEquals(List.of(), events(DataPlaneEvent.AddressChanged.class));

            send(elsewhere, frame(RECV_KEY, 0, OUR, 2, 2));
            pumpUntil(DataPlaneCounter.ADDRESS_CHANGES, 1);
            assertEquals(List.of(new DataPlaneEvent.AddressChanged(LINK,
                    TransportAddr.ofInet((InetSocketAddress) elsewhere.getLocalAddress()))),
                    events(DataPlaneEvent.AddressChanged.class));

            dp.sendLinkMessage(LINK, new byte[]{0x51});
            final byte[] out = receive(elsewhere);
            assertArrayEquals(new byte[]{0x51}, codec.open(SEND_KEY, out, out.length));
            assertNull(peer.receive(ByteBuffer.allocate(2048)), "nothing goes to the old address");

            // A frame from the same (new) address changes nothing further.
            send(elsewhere, frame(RECV_KEY, 0, OUR, 3, 3));
            pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 2);
            assertEquals(1, dp.counter(DataPlaneCounter.ADDRESS_CHANGES));
        }
    }

    @Test
    void handshakePacketsSurfaceAsEventsAndAreSentAsIs() throws Exception {
        start(64);
        final byte[] msg1 = new byte[114];
        msg1[0] = 0x01;
        msg1[2] = 0x6e;
        Arrays.fill(msg1, 4, 114, (byte) 0x5a);
        final byte[] msg2 = new byte[69];
        msg2[0] = 0x02;
        msg2[2] = 0x41;
        send(peer, msg1);
        send(peer, msg2);
        pumpUntil(DataPlaneCounter.HANDSHAKES_IN, 2);
        final List<DataPlaneEvent.HandshakeReceived> hs = events(DataPlaneEvent.HandshakeReceived.class);
        assertEquals(2, hs.size());
        assertEquals(0, hs.get(0).transportId());
        assertEquals(TransportAddr.ofInet((InetSocketAddress) peer.getLocalAddress()), hs.get(0).from());
        assertArrayEquals(msg1, hs.get(0).packet());
        assertArrayEquals(msg2, hs.get(1).packet());

        dp.sendHandshake(0, TransportAddr.ofInet((InetSocketAddress) peer.getLocalAddress()), msg2);
        assertArrayEquals(msg2, receive(peer));
    }

    @Test
    void aFullEventQueueDropsAndCountsEvents() throws Exception {
        start(2);
        final byte[] msg1 = new byte[114];
        msg1[0] = 0x01;
        for (int i = 0; i < 5; i++) {
            send(peer, msg1);
        }
        pumpUntil(DataPlaneCounter.HANDSHAKES_IN, 5);
        assertEquals(3, dp.counter(DataPlaneCounter.DROP_EVENT_QUEUE_FULL));
        assertEquals(2, events.size());
        assertNull(dp.pollEvent());
    }

    @Test
    void kBitRulesTrialDecryptCutOverDrainAndSendOnTheNewSession() throws Exception {
        start(64);
        final byte[] pendingSend = FrameCodec.key(21);
        final byte[] pendingRecv = FrameCodec.key(22);
        // 1. The other K bit with no pending session: never a reason to drop.
        send(peer, frame(RECV_KEY, 1, OUR, 0, 0));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 1);
        assertEquals(0, dp.linkStats(LINK).keyEpochBit());

        dp.installPending(LINK, 0x11, 0x21, pendingSend, pendingRecv);
        // 2. The other K bit but the current session's keys (a stale pending): trial fails, normal path delivers.
        send(peer, frame(RECV_KEY, 1, OUR, 1, 1));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 2);
        assertEquals(0, dp.counter(DataPlaneCounter.KBIT_CUTOVERS));
        assertEquals(0, dp.linkStats(LINK).keyEpochBit());
        // 3. Addressed to the pending index without the K flip but not under the pending keys: tried, refused.
        send(peer, frame(RECV_KEY, 0, 0x11, 0, 2));
        pumpUntil(DataPlaneCounter.DROP_AUTH_FAILED, 1);
        assertEquals(0, dp.counter(DataPlaneCounter.KBIT_CUTOVERS));
        // 4. K flipped and authenticated by the pending session: immediate cutover, frame delivered.
        send(peer, frame(pendingRecv, 1, 0x11, 0, 3));
        pumpUntil(DataPlaneCounter.KBIT_CUTOVERS, 1);
        assertEquals(3, deliveries.delivered.get());
        assertEquals(List.of(new DataPlaneEvent.CutOver(LINK, 0x11, clock.get())),
                events(DataPlaneEvent.CutOver.class));
        assertEquals(1, dp.linkStats(LINK).keyEpochBit());
        // 5. The old session drains: late frames to the old index still open with the old keys.
        send(peer, frame(RECV_KEY, 0, OUR, 2, 4));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 4);
        assertEquals(2, dp.registeredIndices());

        // 6. Sending now uses the new session: K = 1, their new index, counter from 0, timestamps from the cutover.
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(1500));
        dp.sendLinkMessage(LINK, new byte[]{0x51});
        final byte[] out = receive(peer);
        assertEquals(1, FrameCodec.flags(out));
        assertEquals(0x21, FrameCodec.receiverIdx(out));
        assertEquals(0, FrameCodec.counter(out));
        assertEquals(16 + 4 + 1 + 16, out.length);
        assertArrayEquals(new byte[]{0x51}, codec.open(pendingSend, out, out.length));
        assertEquals(1500, ByteBuffer.wrap(codec.openPlaintext(pendingSend, out, out.length))
                .order(ByteOrder.LITTLE_ENDIAN).getInt(0), "ms since the cutover");

        // 7. End of drain: the old index is unknown again, dropped without crypto.
        dp.dropPrevious(LINK);
        pumpUntil(() -> dp.registeredIndices() == 1);
        send(peer, frame(RECV_KEY, 0, OUR, 3, 5));
        pumpUntil(DataPlaneCounter.DROP_UNKNOWN_INDEX, 1);

        // 8. A commanded cutover without a pending session does nothing.
        dp.cutover(LINK, clock.get());
        pumpUntil(() -> true);
        assertEquals(1, dp.linkStats(LINK).keyEpochBit());

        // 9. A commanded cutover (the control plane's tick) toggles K back and emits no CutOver event.
        final byte[] thirdSend = FrameCodec.key(31);
        dp.installPending(LINK, 0x12, 0x22, thirdSend, FrameCodec.key(32));
        dp.cutover(LINK, clock.get());
        dp.sendLinkMessage(LINK, new byte[]{0x50, 0x00});
        final byte[] out2 = receive(peer);
        assertEquals(0, FrameCodec.flags(out2));
        assertEquals(0x22, FrameCodec.receiverIdx(out2));
        assertEquals(0, FrameCodec.counter(out2));
        assertArrayEquals(new byte[]{0x50, 0x00}, codec.open(thirdSend, out2, out2.length));
        assertEquals(1, events(DataPlaneEvent.CutOver.class).size());
        assertEquals(0, dp.linkStats(LINK).keyEpochBit());
        assertEquals(0, deliveries.corrupt.get() + deliveries.outOfOrder.get());
    }

    /**
     * The peer promotes the link when it writes msg2 and sends at once (crypto-link.md §5.8): frames for the index
     * our msg1 named that arrive before the control plane has read msg2 are held, then delivered in order ahead of
     * later ones once the link is installed; nothing is dropped as an unknown index.
     */
    @Test
    void framesRightBehindAMsg2AreHeldAndDeliveredInOrderOnceTheLinkIsIn() throws Exception {
        startWithoutLink(64);
        send(peer, msg2(THEIR, OUR));
        for (int i = 0; i < 3; i++) {
            send(peer, frame(RECV_KEY, 0, OUR, i, i));
        }
        pumpUntil(DataPlaneCounter.LINK_FRAMES_HELD, 3);
        assertEquals(1, dp.counter(DataPlaneCounter.HANDSHAKES_IN));
        assertEquals(0, deliveries.delivered.get());
        // An index nobody expects is still dropped at once, before any crypto.
        send(peer, frame(RECV_KEY, 0, 0x99, 0, 9));
        pumpUntil(DataPlaneCounter.DROP_UNKNOWN_INDEX, 1);

        addLink(clock.get());
        send(peer, frame(RECV_KEY, 0, OUR, 3, 3));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 4);
        assertEquals(3, dp.counter(DataPlaneCounter.LINK_FRAMES_RELEASED));
        assertEquals(0, deliveries.outOfOrder.get() + deliveries.corrupt.get(), "held frames first, in order");
        assertEquals(1, dp.counter(DataPlaneCounter.DROP_UNKNOWN_INDEX));
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_HELD_FRAME_EXPIRED));
        assertEquals(3, dp.linkStats(LINK).highestCounterIn());
    }

    /**
     * The two ends' K bits need not agree (a reconnect through the rekey path, crypto-link.md §5.11): the peer's
     * first frames under the new keys then carry the K bit we already have. They are addressed to the pending index,
     * so they are tried against the pending session and cut over (ADR 0063); the reference's K-flip-only rule fails
     * each of them, and twenty in a row remove the link, which is what stalled a full-rate stream under 2 s rekeys.
     */
    @Test
    void newKeyFramesWithoutTheKFlipStillCutOverWhenTheBitsDisagree() throws Exception {
        start(64);
        final byte[] pendingSend = FrameCodec.key(21);
        final byte[] pendingRecv = FrameCodec.key(22);
        dp.installPending(LINK, 0x11, 0x21, pendingSend, pendingRecv);
        final int frames = 25;
        for (int i = 0; i < frames; i++) {
            send(peer, frame(pendingRecv, 0, 0x11, i, i));
        }
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, frames);
        assertEquals(1, dp.counter(DataPlaneCounter.KBIT_CUTOVERS));
        assertEquals(1, dp.linkStats(LINK).keyEpochBit(), "our K bit toggles at the cutover as always");
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_AUTH_FAILED));
        assertEquals(List.of(new DataPlaneEvent.CutOver(LINK, 0x11, clock.get())),
                events(DataPlaneEvent.CutOver.class));
        assertEquals(List.of(), events(DataPlaneEvent.TooManyDecryptFailures.class));
        assertEquals(0, deliveries.outOfOrder.get() + deliveries.corrupt.get());
        // Our frames now go under the new keys to their new index.
        dp.sendLinkMessage(LINK, new byte[]{0x51});
        final byte[] out = receive(peer);
        assertEquals(0x21, FrameCodec.receiverIdx(out));
        assertArrayEquals(new byte[]{0x51}, codec.open(pendingSend, out, out.length));
    }

    /** A rekey responder cuts over at once (§5.11): its first new-key frames wait for our pending session. */
    @Test
    void newKeyFramesBehindARekeyMsg2WaitForThePendingSessionAndCutOver() throws Exception {
        start(64);
        final byte[] pendingRecv = FrameCodec.key(22);
        send(peer, msg2(0x21, 0x11));
        send(peer, frame(pendingRecv, 1, 0x11, 0, 0));
        send(peer, frame(pendingRecv, 1, 0x11, 1, 1));
        pumpUntil(DataPlaneCounter.LINK_FRAMES_HELD, 2);
        dp.installPending(LINK, 0x11, 0x21, FrameCodec.key(21), pendingRecv);
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, 2);
        assertEquals(1, dp.counter(DataPlaneCounter.KBIT_CUTOVERS));
        assertEquals(1, dp.linkStats(LINK).keyEpochBit());
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_UNKNOWN_INDEX)
                + dp.counter(DataPlaneCounter.DROP_AUTH_FAILED));
        assertEquals(0, deliveries.outOfOrder.get());
    }

    /**
     * A rekey responder may cut over right after its msg2 (crypto-link.md §5.11) and a full-rate stream then puts
     * hundreds of frames under the new keys on the wire before our control thread has read the msg2 and installed
     * them (docs/benchmarks.md, "Frames under new link keys held"). All of them are held (a quarter of the pool may
     * be) and delivered in order once the keys are in; none is dropped. The old hold kept 32 per index.
     */
    @Test
    void hundredsOfNewKeyFramesBeforeTheRekeyInstallAreAllDeliveredInOrder() throws Exception {
        poolSlots = 2048;
        start(64);
        final byte[] pendingRecv = FrameCodec.key(22);
        send(peer, msg2(0x21, 0x11));
        final int frames = 400;
        for (int i = 0; i < frames; i++) {
            send(peer, frame(pendingRecv, 1, 0x11, i, i));
            if (i % 50 == 49) {
                // paced so the socket's receive buffer never overflows while the frames wait
                final long sent = i + 1;
                pumpUntil(() -> dp.counter(DataPlaneCounter.LINK_FRAMES_HELD)
                        + dp.counter(DataPlaneCounter.DROP_HELD_FRAME_OVERFLOW) >= sent);
            }
        }
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_HELD_FRAME_OVERFLOW), this::counters);
        assertEquals(frames, dp.counter(DataPlaneCounter.LINK_FRAMES_HELD));
        assertEquals(0, deliveries.delivered.get());
        dp.installPending(LINK, 0x11, 0x21, FrameCodec.key(21), pendingRecv);
        send(peer, frame(pendingRecv, 1, 0x11, frames, frames));
        pumpUntil(DataPlaneCounter.DATAGRAMS_DELIVERED, frames + 1);
        assertEquals(frames, dp.counter(DataPlaneCounter.LINK_FRAMES_RELEASED));
        assertEquals(0, deliveries.outOfOrder.get() + deliveries.corrupt.get(), "held frames first, in order");
        assertEquals(frames, deliveries.lastSeq());
        assertEquals(1, dp.counter(DataPlaneCounter.KBIT_CUTOVERS));
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_UNKNOWN_INDEX) + dp.counter(DataPlaneCounter.DROP_AUTH_FAILED)
                + dp.counter(DataPlaneCounter.DROP_HELD_FRAME_EXPIRED));
    }

    /** Bounded per index and in time: the rest is dropped and counted, and the slots go back to the pool. */
    @Test
    void heldFramesAreBoundedAndExpireCounted() throws Exception {
        startWithoutLink(64);
        dp.doWork();
        final int used = dp.pool().inUse();
        send(peer, msg2(THEIR, OUR));
        // a quarter of the 256-slot pool
        final int bound = 64;
        for (int i = 0; i < bound + 2; i++) {
            send(peer, frame(RECV_KEY, 0, OUR, i, i));
            if (i % 16 == 15) {
                final long sent = i + 1;
                pumpUntil(() -> dp.counter(DataPlaneCounter.LINK_FRAMES_HELD)
                        + dp.counter(DataPlaneCounter.DROP_HELD_FRAME_OVERFLOW) >= sent);
            }
        }
        pumpUntil(DataPlaneCounter.DROP_HELD_FRAME_OVERFLOW, 2);
        assertEquals(bound, dp.counter(DataPlaneCounter.LINK_FRAMES_HELD));
        clock.addAndGet(LinkFrameHold.HOLD_NANOS - 1);
        dp.drainEvents(events::add);
        assertEquals(0, dp.counter(DataPlaneCounter.DROP_HELD_FRAME_EXPIRED), "not yet");
        clock.addAndGet(1);
        dp.drainEvents(events::add);
        assertEquals(bound, dp.counter(DataPlaneCounter.DROP_HELD_FRAME_EXPIRED));
        pumpUntil(() -> dp.pool().inUse() == used);
        // Once expired, the index is unknown again: a late frame is dropped at once.
        send(peer, frame(RECV_KEY, 0, OUR, 99, 99));
        pumpUntil(DataPlaneCounter.DROP_UNKNOWN_INDEX, 1);
        addLink(clock.get());
        pumpUntil(() -> true);
        assertEquals(0, deliveries.delivered.get());
        assertEquals(0, dp.counter(DataPlaneCounter.LINK_FRAMES_RELEASED));
    }

    private static DatagramChannel channelOn(final String address) throws IOException {
        final DatagramChannel ch = DatagramChannel.open().bind(new InetSocketAddress(address, 0));
        ch.configureBlocking(false);
        return ch;
    }

    private static byte[] msg1() {
        final byte[] msg1 = new byte[114];
        msg1[0] = 0x01;
        msg1[2] = 0x6e;
        return msg1;
    }

    /**
     * A msg1 flood from one address (many ports) spends that address's budget in the receive thread, before any
     * copy or event; another network's msg1 still goes up, and the flooder gets one more a second.
     */
    @Test
    void aMsg1FloodFromOneAddressSpendsOnlyItsOwnBudget() throws Exception {
        startWithoutLink(256);
        final List<DatagramChannel> ports = new ArrayList<>();
        try (DatagramChannel honest = channelOn("127.0.1.1")) {
            for (int p = 0; p < 8; p++) {
                ports.add(channelOn("127.0.0.1"));
            }
            final int flood = 64;
            for (int i = 0; i < flood; i++) {
                send(ports.get(i % ports.size()), msg1());
            }
            pumpUntil(() -> dp.counter(DataPlaneCounter.HANDSHAKES_IN)
                    + dp.counter(DataPlaneCounter.DROP_MSG1_SOURCE_BUDGET) == flood);
            assertEquals(Msg1Admission.SOURCE_BURST, dp.counter(DataPlaneCounter.HANDSHAKES_IN));
            assertEquals(Msg1Admission.SOURCE_BURST, events(DataPlaneEvent.HandshakeReceived.class).size());

            send(honest, msg1());
            pumpUntil(DataPlaneCounter.HANDSHAKES_IN, Msg1Admission.SOURCE_BURST + 1);
            assertEquals(TransportAddr.ofInet((InetSocketAddress) honest.getLocalAddress()),
                    events(DataPlaneEvent.HandshakeReceived.class).getLast().from());

            // One token a second for the flooder: two after two seconds.
            clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
            for (int i = 0; i < 3; i++) {
                send(ports.get(i), msg1());
            }
            pumpUntil(() -> dp.counter(DataPlaneCounter.DROP_MSG1_SOURCE_BUDGET)
                    == flood - Msg1Admission.SOURCE_BURST + 1);
            assertEquals(Msg1Admission.SOURCE_BURST + 3, dp.counter(DataPlaneCounter.HANDSHAKES_IN));
            // msg2 and established frames are not budgeted.
            send(ports.get(3), msg2(THEIR, OUR));
            pumpUntil(DataPlaneCounter.HANDSHAKES_IN, Msg1Admission.SOURCE_BURST + 4);
        } finally {
            for (final DatagramChannel ch : ports) {
                ch.close();
            }
        }
    }

    /** Many addresses of one /24 share their network's budget; a source in another /24 is not affected. */
    @Test
    void addressesOfOneNetworkShareItsBudget() throws Exception {
        startWithoutLink(256);
        final List<DatagramChannel> sources = new ArrayList<>();
        try (DatagramChannel elsewhere = channelOn("127.0.2.1")) {
            final int addresses = Msg1Admission.NETWORK_BURST / Msg1Admission.SOURCE_BURST + 2;
            for (int a = 0; a < addresses; a++) {
                sources.add(channelOn("127.0.0." + (10 + a)));
            }
            final int total = addresses * Msg1Admission.SOURCE_BURST;
            for (final DatagramChannel ch : sources) {
                for (int i = 0; i < Msg1Admission.SOURCE_BURST; i++) {
                    send(ch, msg1());
                }
            }
            pumpUntil(() -> dp.counter(DataPlaneCounter.HANDSHAKES_IN)
                    + dp.counter(DataPlaneCounter.DROP_MSG1_NETWORK_BUDGET) == total);
            assertEquals(Msg1Admission.NETWORK_BURST, dp.counter(DataPlaneCounter.HANDSHAKES_IN));
            assertEquals(0, dp.counter(DataPlaneCounter.DROP_MSG1_SOURCE_BUDGET));
            send(elsewhere, msg1());
            pumpUntil(DataPlaneCounter.HANDSHAKES_IN, Msg1Admission.NETWORK_BURST + 1);
        } finally {
            for (final DatagramChannel ch : sources) {
                ch.close();
            }
        }
    }

    /** @return the frame's timestamp (ms since its session's start), after checking it opens with {@code key} */
    private int timestampOf(final byte[] key, final byte[] frame) {
        final byte[] plain = codec.openPlaintext(key, frame, frame.length);
        if (plain == null) {
            fail("frame does not open with the expected key");
        }
        return ByteBuffer.wrap(plain).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    }

    /**
     * One time base per link: frame timestamps count from the instant the control plane chose (at promotion, and
     * at a commanded cutover), not from when the data plane happened to apply the command; after a K-bit cutover
     * they count from the instant the data plane reports in its event.
     */
    @Test
    void frameTimestampsCountFromTheInstantBothPlanesShare() throws Exception {
        start(64, 35);   // the handshake took 35 ms between promotion and addLink
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        dp.sendLinkMessage(LINK, new byte[]{0x51});
        assertEquals(135, timestampOf(SEND_KEY, receive(peer)), "ms since promotion");

        // A commanded cutover at the control plane's instant, applied by the worker 40 ms later.
        final byte[] secondSend = FrameCodec.key(41);
        dp.installPending(LINK, 0x11, 0x21, secondSend, FrameCodec.key(42));
        final long cutoverAt = clock.get();
        dp.cutover(LINK, cutoverAt);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(40));
        pumpUntil(() -> dp.linkStats(LINK).keyEpochBit() == 1);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(60));
        dp.sendLinkMessage(LINK, new byte[]{0x51});
        assertEquals(100, timestampOf(secondSend, receive(peer)), "ms since the commanded cutover's instant");

        // A K-bit cutover: the data plane picks the instant and reports it with the new session's index.
        final byte[] thirdSend = FrameCodec.key(43);
        final byte[] thirdRecv = FrameCodec.key(44);
        dp.installPending(LINK, 0x12, 0x22, thirdSend, thirdRecv);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(7));
        final long trialAt = clock.get();
        send(peer, frame(thirdRecv, 0, 0x12, 0, 0));
        pumpUntil(DataPlaneCounter.KBIT_CUTOVERS, 1);
        assertEquals(List.of(new DataPlaneEvent.CutOver(LINK, 0x12, trialAt)), events(DataPlaneEvent.CutOver.class));
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(80));
        dp.sendLinkMessage(LINK, new byte[]{0x51});
        assertEquals(80, timestampOf(thirdSend, receive(peer)), "ms since the reported cutover instant");
    }

    @Test
    void linkMessagesOtherThanDatagramsBecomeEventsWithTheTimestamp() throws Exception {
        start(64);
        send(peer, codec.seal(RECV_KEY, 0, OUR, 0, 123_456, new byte[]{0x51}));
        send(peer, codec.seal(RECV_KEY, 0, OUR, 1, 9, new byte[]{0x50, 0x07}));
        pumpUntil(DataPlaneCounter.FRAMES_IN, 2);
        final List<DataPlaneEvent.LinkMessageReceived> got = events(DataPlaneEvent.LinkMessageReceived.class);
        assertEquals(2, got.size());
        assertEquals(LINK, got.get(0).linkId());
        assertEquals(123_456, got.get(0).timestampMs());
        assertArrayEquals(new byte[]{0x51}, got.get(0).message());
        assertArrayEquals(new byte[]{0x50, 0x07}, got.get(1).message());
        assertEquals(0, deliveries.delivered.get());
        assertEquals(clock.get(), dp.linkStats(LINK).lastAuthenticatedNanos());
    }
}
