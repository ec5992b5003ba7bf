package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.Ipv6Shim;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;

/**
 * Coverage-guided fuzzing (Jazzer) of the encrypted receive path as the daemon runs it: one {@link DataPlane}
 * (SHARED mode, manual clock) with a loop-driven transport ({@link LoopPortTest.FakeTransport}), an installed link
 * with real ChaCha20-Poly1305 keys, a forwarding table and an end-to-end session. Each input becomes one frame
 * handed to {@link TransportPort#deliver}: the shared classification ({@code InboundDispatch}), the index table, the
 * worker's replay check, AEAD open, inner-header checks, the SessionDatagram transit/local decision and, for
 * {@link #sessionFrame}, the FSP session layer (replay, AEAD, inner header, port shim, IPv6 rebuild). Inputs are
 * raw frames, or link messages / FSP payloads sealed with the real keys (so coverage goes past the AEAD check),
 * or sealed ones with one byte flipped.
 *
 * <p>Contract checked after every input: nothing throws out of the data plane; every slot comes back to the pool
 * (frames held for an expected index are expired by moving the clock past the hold time); a frame sealed with the
 * right key and a fresh counter is never counted as an authentication failure; a frame with a flipped byte in its
 * authenticated part is never accepted; and the link (or session) still takes the next valid frame, so no input
 * wedges it.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/dataplane/engine/EncryptedFrameJazzerTestInputs/<method>/}; with
 * {@code JAZZER_FUZZ=1} Jazzer fuzzes one target, see {@code benchmarks/fuzz.sh}. The seeds are written by
 * {@link #writeSeeds()} ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class EncryptedFrameJazzerTest {
    private static final long LINK_A = 1;
    private static final int B_IDX = 0x101;
    private static final int A_IDX = 0x102;
    private static final byte[] B_TO_A = FrameCodec.key(31);
    private static final byte[] A_TO_B = FrameCodec.key(32);
    private static final byte[] S_B_TO_A = FrameCodec.key(41);
    private static final byte[] S_A_TO_B = FrameCodec.key(42);
    private static final NodeAddr A = DataPlaneTransitTest.addr(0x30);
    private static final NodeAddr B = DataPlaneTransitTest.addr(0x20);
    private static final TransportAddr ADDR_A = TransportAddr.ofText("node-a");
    private static final byte[] SOURCE = ADDR_A.bytes();
    /** Link message type that the data plane passes up as an event (not a SessionDatagram): the liveness probe. */
    private static final int PROBE_TYPE = 0x51;
    /** Past {@link LinkFrameHold#HOLD_NANOS}: frames held for an index a fuzzed msg2 named expire at the drain. */
    private static final long STEP_NANOS = 2 * LinkFrameHold.HOLD_NANOS;
    private static final int FSP_HEADER = 12;
    private static final int FSP_K = 0x02;
    private static final int FSP_CP = 0x01;

    /** One data plane for all executions of a run (built on first use). */
    private static Plane plane;

    /** The data plane under test, its transport port and the peer's send counters. */
    private static final class Plane {
        final AtomicLong clock = new AtomicLong(7_000_000_000L);
        final LoopPortTest.FakeTransport transport = new LoopPortTest.FakeTransport();
        final DataPlane dp;
        final FrameCodec codec = new FrameCodec();
        final int baseline;
        final int[] outbound = new int[64];
        long linkCounter;
        long sessionCounter;
        /** Authenticated FSP messages other than data packets (passed up as events, not counted by the plane). */
        long sessionInner;

        Plane() {
            dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.SHARED).workerCount(2)
                    .poolSlots(256).eventQueueCapacity(4096).nanoClock(clock::get).sessionPath(true)
                    .cipherSupplier(AeadCiphers::create).localDelivery(new Deliveries())
                    .ipv6SinkSupplier(() -> (seg, off, len) -> len));
            assertEquals(0, dp.addTransport(transport));
            dp.start();
            dp.addLink(new LinkSpec(LINK_A, 0, ADDR_A, B_IDX, A_IDX, B_TO_A, A_TO_B, clock.get()));
            dp.setForwardingTable(ForwardingTable.builder(B, Coords.of(B))
                    .peer(new ForwardingTable.Peer(A, LINK_A, Coords.of(A, B), 1.0, 1280, true,
                            ForwardingTable.TreeRole.CHILD))
                    .build());
            dp.addSession(new SessionSpec(A, S_B_TO_A, S_A_TO_B, false, clock.get(), 64));
            settle();
            baseline = dp.pool().inUse();
        }

        /**
         * Hands one frame to the transport port, as a loop transport's receive does.
         *
         * @return false when the frame is longer than a slot holds (a transport never delivers such a frame)
         */
        boolean deliver(final byte[] frame) {
            final TransportPort port = transport.port;
            if (frame.length > port.pool().maxMtuBytes()) {
                return false;
            }
            final int slot = port.acquire();
            if (slot == PacketPool.NO_SLOT) {
                throw new AssertionError("pool exhausted: slots leak (in use " + dp.pool().inUse() + ")");
            }
            MemorySegment.copy(frame, 0, port.pool().slotSegment(slot), ValueLayout.JAVA_BYTE,
                    TransportPort.DATA_OFFSET, frame.length);
            port.deliver(slot, frame.length, MemorySegment.ofArray(SOURCE), 0, SOURCE.length);
            port.flush();
            settle();
            return true;
        }

        /** Runs the plane until idle, drops whatever it sends, expires held frames, drains events. */
        void settle() {
            for (int i = 0; i < 4; i++) {
                dp.doWork();
                int n;
                while ((n = transport.port.drainOutbound(outbound, outbound.length)) > 0) {
                    for (int k = 0; k < n; k++) {
                        transport.port.takeDestination(outbound[k]);
                        transport.port.release(outbound[k]);
                    }
                }
            }
            clock.addAndGet(STEP_NANOS);
            dp.drainEvents(e -> {
                if (e instanceof DataPlaneEvent.SessionInnerReceived) {
                    sessionInner++;
                }
            });
        }

        long count(final DataPlaneCounter c) {
            return dp.counter(c);
        }

        /** @return FSP messages that authenticated: IPv6 packets delivered plus inner messages passed up */
        long sessionAccepted() {
            return count(DataPlaneCounter.SESSION_PACKETS_IN) + sessionInner;
        }

        /** A link frame from A, sealed with A's real send key; {@code counter} chosen by the caller. */
        byte[] sealLink(final int flags, final long counter, final byte[] message) {
            linkCounter = Math.max(linkCounter, counter + 1);
            return codec.seal(A_TO_B, flags, B_IDX, counter, 1, message);
        }

        /** An FSP message from A (header, then the inner plaintext sealed with A's session send key). */
        byte[] sealFsp(final int flags, final long counter, final byte[] inner) {
            sessionCounter = Math.max(sessionCounter, counter + 1);
            final byte[] fsp = new byte[FSP_HEADER + inner.length + AeadCipher.TAG_BYTES];
            ByteBuffer.wrap(fsp).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0).put((byte) flags)
                    .putShort((short) inner.length).putLong(counter).put(inner);
            codec.sealInPlace(S_A_TO_B, counter, fsp, FSP_HEADER, inner.length);
            return fsp;
        }

        /** The FSP message inside a SessionDatagram A to B inside an authentic link frame with a fresh counter. */
        byte[] datagram(final byte[] fsp) {
            return sealLink(0, linkCounter, new SessionDatagram(64, 0xFFFF, A, B, fsp).encode());
        }

        /** The link still authenticates its next frame. */
        void assertLinkAlive() {
            final long before = count(DataPlaneCounter.FRAMES_IN);
            deliver(sealLink(0, linkCounter, new byte[] {(byte) PROBE_TYPE, 1, 2, 3}));
            assertEquals(before + 1, count(DataPlaneCounter.FRAMES_IN), "the link took the next valid frame");
        }

        /** The session still opens its next packet. */
        void assertSessionAlive() {
            final long before = count(DataPlaneCounter.SESSION_PACKETS_IN);
            deliver(datagram(sealFsp(0, sessionCounter, PROBE_INNER)));
            assertEquals(before + 1, count(DataPlaneCounter.SESSION_PACKETS_IN),
                    "the session took the next valid packet");
        }

        void assertNoLeak() {
            assertEquals(baseline, dp.pool().inUse(), "every slot came back to the pool");
        }
    }

    /** A DataPacket (ports 256/256, shim of a small UDP packet from A to B): the session liveness probe. */
    private static final byte[] PROBE_INNER = dataPacketInner(DataPlaneSessionTest.packet(A, B, 17, 20, 0));

    private static byte[] dataPacketInner(final byte[] ipv6) {
        final byte[] shim = Ipv6Shim.compress(ipv6, 0, ipv6.length).valueOrNull();
        final ByteBuffer b = ByteBuffer.allocate(6 + 4 + shim.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(5).put((byte) 0x10).put((byte) 0).putShort((short) 256).putShort((short) 256).put(shim);
        return b.array();
    }

    private static synchronized Plane plane() {
        if (plane == null) {
            plane = new Plane();
        }
        return plane;
    }

    private static int u8(final byte[] in, final int i) {
        return i < in.length ? in[i] & 0xFF : 0;
    }

    private static byte[] tail(final byte[] in, final int from) {
        return from >= in.length ? new byte[0] : Arrays.copyOfRange(in, from, in.length);
    }

    /**
     * Link frames. {@code in[0] % 3} picks the form: 0, the rest as a raw frame; 1, {@code in[3..]} as a link
     * message sealed with A's key, FMP flags {@code in[1]}, counter = next + (signed) {@code in[2]}; 2, the same
     * sealed with the next counter and then byte {@code in[1] % length} XORed with {@code in[2] | 1}.
     */
    @FuzzTest
    void linkFrame(final byte[] in) {
        if (in.length == 0) {
            return;
        }
        final Plane p = plane();
        final long authFailed = p.count(DataPlaneCounter.DROP_AUTH_FAILED);
        final long framesIn = p.count(DataPlaneCounter.FRAMES_IN);
        switch (u8(in, 0) % 3) {
            case 0 -> {
                final byte[] frame = tail(in, 1);
                if (p.deliver(frame) && p.count(DataPlaneCounter.FRAMES_IN) > framesIn) {
                    // a replayed seed sealed with the real key: the probe must use a later counter
                    p.linkCounter = Math.max(p.linkCounter, FrameCodec.counter(frame) + 1);
                }
            }
            case 1 -> {
                final int flags = u8(in, 1);
                final long counter = Math.max(0, p.linkCounter + (byte) u8(in, 2));
                final boolean fresh = counter >= p.linkCounter;
                final byte[] message = tail(in, 3);
                if (p.deliver(p.sealLink(flags, counter, message)) && fresh) {
                    assertEquals(authFailed, p.count(DataPlaneCounter.DROP_AUTH_FAILED),
                            "a frame sealed with the link's key and a fresh counter authenticates");
                    assertEquals(framesIn + (message.length > 0 ? 1 : 0), p.count(DataPlaneCounter.FRAMES_IN),
                            "taken unless the plaintext is shorter than the inner header");
                }
            }
            default -> {
                final byte[] frame = p.sealLink(0, p.linkCounter, tail(in, 3));
                frame[u8(in, 1) % frame.length] ^= (byte) (u8(in, 2) | 1);
                p.deliver(frame);
                assertEquals(framesIn, p.count(DataPlaneCounter.FRAMES_IN), "a tampered frame is never accepted");
            }
        }
        p.assertNoLeak();
        p.assertLinkAlive();
        p.assertNoLeak();
    }

    /**
     * Session (FSP) messages from A to B inside authentic link frames. {@code in[0] % 3} picks the form: 0, the rest
     * as the raw FSP bytes; 1, {@code in[3..]} as the inner plaintext sealed with A's session key, FSP flags
     * {@code in[1]}, counter = next + (signed) {@code in[2]}; 2, the same sealed with the next counter and then FSP
     * byte {@code in[1] % length} XORed with {@code in[2] | 1}.
     */
    @FuzzTest
    void sessionFrame(final byte[] in) {
        if (in.length == 0) {
            return;
        }
        final Plane p = plane();
        final long authFailed = p.count(DataPlaneCounter.DROP_SESSION_AUTH_FAILED);
        final long accepted = p.sessionAccepted();
        switch (u8(in, 0) % 3) {
            case 0 -> {
                final byte[] fsp = tail(in, 1);
                if (p.deliver(p.datagram(fsp)) && fsp.length >= FSP_HEADER
                        && p.sessionAccepted() > accepted) {
                    // a replayed seed sealed with the real key: the probe must use a later counter
                    p.sessionCounter = Math.max(p.sessionCounter,
                            ByteBuffer.wrap(fsp).order(ByteOrder.LITTLE_ENDIAN).getLong(4) + 1);
                }
            }
            case 1 -> {
                final int flags = u8(in, 1);
                final long counter = Math.max(0, p.sessionCounter + (byte) u8(in, 2));
                final boolean fresh = counter >= p.sessionCounter;
                if (p.deliver(p.datagram(p.sealFsp(flags, counter, tail(in, 3)))) && fresh
                        && (flags & (FSP_K | FSP_CP)) == 0) {
                    assertEquals(authFailed, p.count(DataPlaneCounter.DROP_SESSION_AUTH_FAILED),
                            "an FSP message sealed with the session key and a fresh counter authenticates");
                }
            }
            default -> {
                final byte[] fsp = p.sealFsp(0, p.sessionCounter, tail(in, 3));
                fsp[u8(in, 1) % fsp.length] ^= (byte) (u8(in, 2) | 1);
                p.deliver(p.datagram(fsp));
                assertEquals(accepted, p.sessionAccepted(), "a tampered FSP message is never accepted");
            }
        }
        p.assertNoLeak();
        p.assertSessionAlive();
        p.assertNoLeak();
        assertTrue(p.count(DataPlaneCounter.FRAMES_IN) > 0);
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path base = Path.of(System.getProperty("fips.fuzz.writeSeeds"), "net/fips/dataplane/engine",
                "EncryptedFrameJazzerTestInputs");
        final Plane p = new Plane();
        final byte[] probe = {(byte) PROBE_TYPE, 1, 2, 3};
        final byte[] datagram = new SessionDatagram(64, 1280, A, B, p.sealFsp(0, 0, PROBE_INNER)).encode();
        write(base.resolve("linkFrame"), List.of(
                concat(new byte[] {0}, p.sealLink(0, 0, probe)),
                concat(new byte[] {0}, p.sealLink(0, 1, datagram)),
                concat(new byte[] {1, 0, 0}, probe),
                concat(new byte[] {1, 2, 0}, datagram),
                concat(new byte[] {2, 20, 1}, datagram)));
        write(base.resolve("sessionFrame"), List.of(
                concat(new byte[] {0}, p.sealFsp(0, 0, PROBE_INNER)),
                concat(new byte[] {1, 0, 0}, PROBE_INNER),
                concat(new byte[] {2, 30, 4}, PROBE_INNER)));
    }

    private static void write(final Path dir, final List<byte[]> seeds) throws IOException {
        Files.createDirectories(dir);
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(dir.resolve("seed-" + i), seeds.get(i));
        }
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
