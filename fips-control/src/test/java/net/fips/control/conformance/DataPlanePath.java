package net.fips.control.conformance;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.ffm.boringssl.Boringssl;

/**
 * The production FMP data path for the frame checkers: a real {@link DataPlane} in {@link ThreadingMode#SHARED}
 * (driven by the calling thread, on a manual clock) with one loopback UDP transport and one AEAD backend, facing a
 * plain {@link DatagramChannel} that plays the peer. Everything between the socket and the application goes
 * through the worker exactly as in a running node, through public commands only:
 * <ul>
 *   <li>{@link #inject}: a frame sent from the peer is dispatched by its receiver index, replay-checked and opened
 *       in place (header as AAD, FIPS nonce, payload_len); a SessionDatagram reaches the
 *       {@link net.fips.dataplane.LocalDelivery} hook, any other link message a {@code LinkMessageReceived} event;
 *       either way the opened bytes come back, or null with the drop counters that moved;</li>
 *   <li>{@link #sendLinkMessage} / {@link #sendDatagram}: the worker frames and seals the message on the link's
 *       current session (its own send counter, K bit and timestamp) and the bytes on the wire come back.</li>
 * </ul>
 * Every link starts its session at {@link #SESSION_START}; a send sets the clock so that the frame's timestamp is
 * the one asked for. Waiting is bounded: a result that does not come within 10 s is a failure, never a hang.
 */
final class DataPlanePath implements AutoCloseable {
    /** The session start of every link: a frame's timestamp is the clock minus this, in ms. */
    static final long SESSION_START = 1_000_000_000_000L;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long NANOS_PER_MS = 1_000_000L;

    /** What the data plane handed up: a SessionDatagram (no timestamp: the hook does not see it) or an event. */
    record Received(long linkId, boolean datagram, long timestampMs, byte[] message) {
    }

    private final String backend;
    private final AtomicLong clock = new AtomicLong(SESSION_START);
    private final ArrayDeque<Received> received = new ArrayDeque<>();
    private final DataPlane dp;
    private final DatagramChannel peer;
    private final InetSocketAddress dpAddress;
    private final MemorySegment sendBuffer = Arena.ofAuto().allocate(4096);

    /**
     * @return the AEAD backends the data plane can run: libcrypto and the JDK always (a missing libcrypto fails the
     *         suite), BoringSSL where Debian's android-libboringssl is installed (as {@code .ci/run} does)
     */
    static List<String> backends() {
        return Boringssl.isAvailable()
                ? List.of(AeadCiphers.LIBCRYPTO, AeadCiphers.BORINGSSL, AeadCiphers.JDK)
                : List.of(AeadCiphers.LIBCRYPTO, AeadCiphers.JDK);
    }

    /**
     * @param backend {@link AeadCiphers#LIBCRYPTO}, {@link AeadCiphers#BORINGSSL} or {@link AeadCiphers#JDK}
     * @throws IllegalStateException if that backend is not available on this machine
     */
    DataPlanePath(final String backend) throws IOException {
        this.backend = backend;
        try (AeadCipher probe = AeadCiphers.create(backend)) {
            if (!probe.backend().equals(backend)) {
                throw new IllegalStateException("asked for " + backend + ", got " + probe.backend());
            }
        }
        dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.SHARED).poolSlots(64)
                .cipherSupplier(() -> AeadCiphers.create(backend)).nanoClock(clock::get)
                .localDelivery((linkId, seg, off, len) -> received.add(new Received(linkId, true, -1,
                        seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE)))));
        DatagramChannel ch = null;
        try {
            dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")));
            dp.start();
            ch = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            ch.configureBlocking(false);
        } catch (final IOException | RuntimeException e) {
            dp.close();
            if (ch != null) {
                ch.close();
            }
            throw e;
        }
        peer = ch;
        dpAddress = dp.udpTransport(0).localAddress();
    }

    String backend() {
        return backend;
    }

    /** Installs a link to the peer, its session starting at {@link #SESSION_START}. */
    void link(final long linkId, final int ourIndex, final int theirIndex, final byte[] sendKey,
              final byte[] recvKey) throws IOException {
        dp.addLink(new LinkSpec(linkId, 0, TransportAddr.ofInet((InetSocketAddress) peer.getLocalAddress()), ourIndex,
                theirIndex, sendKey, recvKey, SESSION_START));
    }

    /**
     * Sends {@code frame} from the peer and runs the data plane until it hands something up or counts a drop.
     *
     * @return what was handed up, or null (see {@link #drops()})
     */
    Received inject(final byte[] frame) throws IOException {
        final long dropsBefore = dropTotal();
        peer.send(ByteBuffer.wrap(frame), dpAddress);
        pumpUntil(() -> !received.isEmpty() || dropTotal() != dropsBefore, "the injected frame's outcome");
        return received.poll();
    }

    /** Has the worker seal {@code message} (msg_type first) on the link at {@code timestampMs}; the wire bytes. */
    byte[] sendLinkMessage(final long linkId, final long timestampMs, final byte[] message) throws IOException {
        clock.set(SESSION_START + timestampMs * NANOS_PER_MS);
        dp.sendLinkMessage(linkId, message);
        return receiveAtPeer();
    }

    /** Sends a SessionDatagram through the local-sender path at {@code timestampMs}; the wire bytes. */
    byte[] sendDatagram(final long linkId, final long timestampMs, final byte[] datagram) throws IOException {
        clock.set(SESSION_START + timestampMs * NANOS_PER_MS);
        MemorySegment.copy(datagram, 0, sendBuffer, ValueLayout.JAVA_BYTE, 0, datagram.length);
        if (!dp.sendDatagram(linkId, sendBuffer, 0, datagram.length)) {
            throw new IllegalStateException("the data plane refused the datagram (no slot or queue full)");
        }
        return receiveAtPeer();
    }

    /** @return one of the data plane's counters */
    long counter(final DataPlaneCounter c) {
        return dp.counter(c);
    }

    /** @return the drop counters that are not zero, for a failure message */
    String drops() {
        final StringBuilder sb = new StringBuilder();
        for (final DataPlaneCounter c : DataPlaneCounter.values()) {
            if (c.name().startsWith("DROP_") && dp.counter(c) != 0) {
                sb.append(sb.isEmpty() ? "" : ", ").append(c).append('=').append(dp.counter(c));
            }
        }
        return sb.isEmpty() ? "no drop counted" : sb.toString();
    }

    private long dropTotal() {
        long sum = 0;
        for (final DataPlaneCounter c : DataPlaneCounter.values()) {
            if (c.name().startsWith("DROP_")) {
                sum += dp.counter(c);
            }
        }
        return sum;
    }

    private byte[] receiveAtPeer() {
        final ByteBuffer buf = ByteBuffer.allocate(4096);
        final long dropsBefore = dropTotal();
        pumpUntil(() -> {
            try {
                return peer.receive(buf) != null || dropTotal() != dropsBefore;
            } catch (final IOException e) {
                throw new IllegalStateException(e);
            }
        }, "a frame at the peer");
        if (buf.position() == 0) {
            throw new IllegalStateException("the data plane dropped the message: " + drops());
        }
        buf.flip();
        final byte[] out = new byte[buf.remaining()];
        buf.get(out);
        return out;
    }

    private void pumpUntil(final BooleanSupplier condition, final String what) {
        final long start = System.nanoTime();
        while (true) {
            dp.doWork();
            dp.drainEvents(e -> {
                if (e instanceof DataPlaneEvent.LinkMessageReceived m) {
                    received.add(new Received(m.linkId(), false, m.timestampMs(), m.message()));
                }
            });
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                throw new IllegalStateException("no " + what + " within 10 s (" + backend + "; " + drops() + ")");
            }
        }
    }

    @Override
    public void close() throws IOException {
        try {
            dp.close();
        } finally {
            peer.close();
        }
    }
}
