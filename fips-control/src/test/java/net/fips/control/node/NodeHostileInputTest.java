package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static net.fips.control.node.NodeTestSupport.yaml;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkCounter;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.node.NodeTestSupport.Peer;
import net.fips.control.node.NodeTestSupport.Sender;
import net.fips.control.node.NodeTestSupport.SequenceCheck;
import net.fips.control.noise.HandshakeState;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.testing.FreePorts;

/**
 * A node under hostile input from a raw socket: forged, replayed and truncated frames and a msg1 flood from random
 * identities are dropped and counted, tables stay bounded, and an established link keeps carrying datagrams.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeHostileInputTest {
    private static final String NODE = """
              heartbeat_interval_secs: 1
              link_dead_timeout_secs: 6
              limits:
                max_peers: 16
              rekey:
                enabled: false
            """;

    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        nodes.forEach(Node::close);
        for (final AutoCloseable c : closeables) {
            c.close();
        }
    }

    private Node start(final String yaml, final NodeOptions options) throws Exception {
        final Node n = Node.start(load(yaml), options.aclDirectory(dir.resolve("acl")));
        nodes.add(n);
        return n;
    }

    /** Forwards between a node and whoever talks to the relay, remembering the last established frame to it. */
    private static final class Relay implements AutoCloseable {
        final DatagramChannel ch;
        final InetSocketAddress target;
        final AtomicReference<byte[]> lastFrameToTarget = new AtomicReference<>();
        private volatile SocketAddress client;
        private final Thread thread;

        Relay(final InetSocketAddress target) throws IOException {
            this.target = target;
            this.ch = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            this.thread = Thread.ofPlatform().daemon().name("test-relay").start(this::run);
        }

        int port() throws IOException {
            return ((InetSocketAddress) ch.getLocalAddress()).getPort();
        }

        private void run() {
            final ByteBuffer buf = ByteBuffer.allocate(2048);
            try {
                while (true) {
                    buf.clear();
                    final SocketAddress from = ch.receive(buf);
                    buf.flip();
                    if (from.equals(target)) {
                        if (client != null) {
                            ch.send(buf, client);
                        }
                        continue;
                    }
                    client = from;
                    if (buf.remaining() >= FmpEstablishedHeader.MIN_FRAME_SIZE && buf.get(0) == 0) {
                        final byte[] frame = new byte[buf.remaining()];
                        buf.duplicate().get(frame);
                        lastFrameToTarget.set(frame);
                    }
                    ch.send(buf, target);
                }
            } catch (final ClosedChannelException e) {
                // closed by the test
            } catch (final IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws IOException {
            ch.close();
            try {
                thread.join(5000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long receiverIndexOf(final byte[] frame) {
        return Integer.toUnsignedLong(ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN)
                .getInt(FmpEstablishedHeader.RECEIVER_IDX_OFFSET));
    }

    private static long counterOf(final byte[] frame) {
        return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getLong(FmpEstablishedHeader.COUNTER_OFFSET);
    }

    private static byte[] withCounter(final byte[] frame, final long counter) {
        final byte[] f = frame.clone();
        ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putLong(FmpEstablishedHeader.COUNTER_OFFSET, counter);
        return f;
    }

    @Test
    void tamperedReplayedAndTruncatedFramesAreDroppedAndCountedAndTheLinkKeepsWorking() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final SequenceCheck atA = new SequenceCheck();
        final int pa = FreePorts.udp();
        final Node a = start(yaml(idA, pa, dir.resolve("a.sock"), NODE), new NodeOptions().localDelivery(atA));
        final Relay relay = new Relay(new InetSocketAddress("127.0.0.1", pa));
        closeables.add(relay);
        // b reaches a only through the relay, so the test sees b's genuine frames.
        final Node b = start(yaml(idB, FreePorts.udp(), dir.resolve("b.sock"), NODE,
                new Peer(idA, "a", relay.port(), true)), new NodeOptions());
        until(Duration.ofSeconds(5), () -> NodeTestSupport.linked(a, b), () -> "link up");
        // Under load b may have re-sent its dial; let it settle so the link (and its index) no longer changes.
        until(Duration.ofSeconds(5), () -> b.linkSnapshot().pendingOutbound() == 0, () -> "b's dial settled");
        final long linkId = peerOf(a, b).linkId();

        // A genuine frame of the current session that a has already accepted.
        final AtomicReference<byte[]> accepted = new AtomicReference<>();
        until(Duration.ofSeconds(5), () -> {
            final byte[] f = relay.lastFrameToTarget.get();
            final PeerSnapshot now = peerOf(a, b);
            if (f != null && receiverIndexOf(f) == now.ourIndex() && now.highestCounterIn() >= counterOf(f)) {
                accepted.set(f);
                return true;
            }
            return false;
        }, () -> "a accepted a frame of its current session from b: " + peerOf(a, b));
        final byte[] genuine = accepted.get();

        final InetSocketAddress toA = new InetSocketAddress("127.0.0.1", pa);
        try (DatagramChannel attacker = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            final byte[] forgedCounter = withCounter(genuine, counterOf(genuine) + 1000);
            final byte[] flippedCiphertext = withCounter(genuine, counterOf(genuine) + 2000);
            flippedCiphertext[FmpEstablishedHeader.SIZE + 1] ^= 0x40;
            final byte[] unknownIndex = genuine.clone();
            unknownIndex[FmpEstablishedHeader.RECEIVER_IDX_OFFSET] ^= 0x5A;
            final byte[] badVersion = genuine.clone();
            badVersion[0] = 0x10;
            final byte[][] hostile = {genuine, forgedCounter, flippedCiphertext,
                Arrays.copyOf(genuine, FmpEstablishedHeader.MIN_FRAME_SIZE - 1), {0, 0}, unknownIndex, badVersion};
            for (final byte[] p : hostile) {
                attacker.send(ByteBuffer.wrap(p), toA);
            }
        }
        final var dp = a.dataPlane();
        until(Duration.ofSeconds(5),
                () -> dp.counter(DataPlaneCounter.DROP_REPLAY) == 1
                        && dp.counter(DataPlaneCounter.DROP_AUTH_FAILED) == 2
                        && dp.counter(DataPlaneCounter.DROP_TRUNCATED) == 1
                        && dp.counter(DataPlaneCounter.DROP_RUNT) == 1
                        && dp.counter(DataPlaneCounter.DROP_UNKNOWN_INDEX) == 1
                        && dp.counter(DataPlaneCounter.DROP_BAD_VERSION) == 1,
                () -> NodeTestSupport.describe(a));
        assertEquals(0, dp.counter(DataPlaneCounter.ADDRESS_CHANGES), "no roaming to the attacker's address");

        // The link is intact and carries traffic in order afterwards.
        final Sender sender = new Sender(b, a, atA);
        final long bLink = peerOf(b, a).linkId();
        final long sent = sender.run(bLink, 128, () -> sender.sent() < 2000);
        until(Duration.ofSeconds(5), () -> atA.delivered() == sent,
                () -> "delivered " + atA.delivered() + " of " + sent);
        assertNull(atA.problem());
        assertEquals(linkId, peerOf(a, b).linkId(), "same link");
        until(Duration.ofSeconds(3), () -> peerOf(a, b).dropsIn() >= 3, () -> "per-link drops: " + peerOf(a, b));
        assertEquals(0, a.linkSnapshot().counter(LinkCounter.DECRYPT_FAILURE_REMOVALS));
        // show_peers reports the measured replay drops and the (ended) failure run, not constants.
        // (The link snapshot is published on the 1 s tick, so wait for one taken after the traffic.)
        until(Duration.ofSeconds(3), () -> a.controlApi().showPeers().getFirst().consecutiveDecryptFailures() == 0,
                () -> "the authenticated traffic ended the failure run: " + a.controlApi().showPeers());
        final var peer = a.controlApi().showPeers().getFirst();
        assertTrue(peer.replaySuppressed() >= 1, peer::toString);
        assertEquals(peerOf(a, b).replayDrops(), peer.replaySuppressed());
        // The two frames that failed authentication, as totals per peer and per link (not just the ended run).
        assertEquals(2L, peer.decryptFailures(), peer::toString);
        final var link = a.controlApi().showLinks().getFirst();
        assertEquals(2L, link.decryptFailures());
        assertEquals(peer.replaySuppressed(), link.replaySuppressed());
    }

    @Test
    void msg1FloodFromRandomKeysKeepsTablesBoundedAndTheLinkCarryingDatagrams() throws Exception {
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final SequenceCheck atA = new SequenceCheck();
        final int pa = FreePorts.udp();
        final Node a = start(yaml(idA, pa, dir.resolve("a.sock"), NODE), new NodeOptions().localDelivery(atA));
        final Node b = start(yaml(idB, FreePorts.udp(), dir.resolve("b.sock"), NODE, new Peer(idA, "a", pa, true)),
                new NodeOptions());
        until(Duration.ofSeconds(5), () -> NodeTestSupport.linked(a, b), () -> "link up");
        final long linkA = peerOf(a, b).linkId();
        final long linkB = peerOf(b, a).linkId();

        // A few hundred genuine msg1s to a, each from its own random identity, replayed in a loop.
        final Random r = new Random(42);
        final byte[] compressedA = idA.compressedPublicKey();
        final List<byte[]> msg1s = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            final byte[] epoch = new byte[8];
            r.nextBytes(epoch);
            final HandshakeState hs = HandshakeState.initiator(HandshakeState.Pattern.IK,
                    NodeIdentity.generate().secretKey(), compressedA, epoch, () -> NodeIdentity.generate().secretKey());
            msg1s.add(new FmpMsg1(r.nextInt(), hs.writeMessage1()).encode());
        }
        final AtomicLong floodSent = new AtomicLong();
        final long floodNanos = 3_000_000_000L;
        final Thread flood = Thread.ofPlatform().name("test-flood").start(() -> {
            try (DatagramChannel ch = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
                final InetSocketAddress to = new InetSocketAddress("127.0.0.1", pa);
                final long end = System.nanoTime() + floodNanos;
                int i = 0;
                while (System.nanoTime() - end < 0) {
                    ch.send(ByteBuffer.wrap(msg1s.get(i++ % msg1s.size())), to);
                    floodSent.incrementAndGet();
                    if ((i & 7) == 0) {
                        LockSupport.parkNanos(500_000L);   // ~ 8 per 0.5 ms: several thousand a second
                    }
                }
            } catch (final IOException e) {
                throw new IllegalStateException(e);
            }
        });

        final int[] maxPeers = {0};
        final int[] maxIndices = {0};
        final int[] maxDials = {0};
        final Sender sender = new Sender(b, a, atA);
        final long sent = sender.run(linkB, 256, () -> {
            maxPeers[0] = Math.max(maxPeers[0], a.linkSnapshot().peers().size());
            maxDials[0] = Math.max(maxDials[0], a.linkSnapshot().pendingOutbound());
            maxIndices[0] = Math.max(maxIndices[0], a.dataPlane().registeredIndices());
            return flood.isAlive();
        });
        flood.join();
        until(Duration.ofSeconds(5), () -> atA.delivered() >= sent,
                () -> "delivered " + atA.delivered() + " of " + sent);

        final long received = a.linkSnapshot().counter(LinkCounter.MSG1_RECEIVED);
        final long budgeted = a.dataPlane().counter(DataPlaneCounter.DROP_MSG1_SOURCE_BUDGET)
                + a.dataPlane().counter(DataPlaneCounter.DROP_MSG1_NETWORK_BUDGET)
                + a.dataPlane().counter(DataPlaneCounter.DROP_MSG1_TRANSPORT_BUDGET);
        assertTrue(floodSent.get() >= 5000, "a flood of thousands per second: " + floodSent.get());
        assertTrue(received + budgeted + a.dataPlane().counter(DataPlaneCounter.DROP_EVENT_QUEUE_FULL)
                >= floodSent.get() / 2, "the node saw the flood: " + NodeTestSupport.describe(a));
        // One source: its own budget in the receive thread refuses nearly all of it before the control plane.
        assertTrue(a.dataPlane().counter(DataPlaneCounter.DROP_MSG1_SOURCE_BUDGET) > (received + budgeted) * 9 / 10,
                "the source's budget refused most in the data plane: " + NodeTestSupport.describe(a));
        assertTrue(maxPeers[0] <= 16, "peer table bounded by max_peers: " + maxPeers[0]);
        assertTrue(maxIndices[0] <= 16, "dispatch indices bounded: " + maxIndices[0]);
        assertEquals(0, maxDials[0], "the flood makes no dials");
        assertTrue(sent >= 2000, "the link carried datagrams throughout: " + sent);
        assertNull(atA.problem(), "no loss or reordering on the real link");
        assertEquals(linkA, peerOf(a, b).linkId(), "the real link survived");
    }
}
