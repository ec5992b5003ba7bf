package net.fips.dataplane.tun;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import net.fips.ffm.linux.TunIoctl;

/**
 * Coverage-guided fuzzing (Jazzer) of the TUN offload code that takes bytes from the kernel's TUN device and from
 * the mesh: {@link #rxFrame} drives {@link TcpOffload#vnetFrame} (the classification {@code TunRxAgent} runs on
 * every frame read in virtio-net header mode) and then splits a super-segment with {@link TcpOffload#writeSegment}
 * as the agent does; {@link #coalesce} feeds a sequence of packets into a {@link TunCoalescer} (the TUN writer's
 * receive-side coalescing of packets that arrived through sessions).
 *
 * <p>Contract, checked with the independent byte-array checksum of {@link TcpOffloadTest}: a plain packet comes out
 * unchanged but for a completed partial checksum, which then verifies; a super-segment is only taken when it is
 * an IPv6/TCP packet whose length fields agree, and splits into segments that fit a slot, each with fixed length,
 * sequence number and flags, a valid checksum, and together exactly the original payload; the coalescer's output,
 * super-segments split again by {@code gso_size}, is the input sequence (checksum and urgent-pointer fields aside),
 * and nothing is lost.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/dataplane/tun/TunOffloadJazzerTestInputs/<method>/}; with {@code JAZZER_FUZZ=1}
 * Jazzer fuzzes one target, see {@code benchmarks/fuzz.sh}. Seeds: {@link #writeSeeds()}
 * ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class TunOffloadJazzerTest {
    private static final int VNET = TunIoctl.VIRTIO_NET_HDR_SIZE;
    /** A slot's packet capacity, as for a 1500-byte device MTU. */
    private static final int CAPACITY = 1500;
    private static final int TCP = TcpOffload.IPV6_HEADER;

    /** The longest payload {@link #coalesce} asks for: {@code a * 8 + b % 8}. */
    private static final int MAX_PAYLOAD = 255 * 8 + 7;
    /** {@link #payload}'s bytes by seed. */
    private static final byte[][] PAYLOADS = new byte[256][];

    private final Arena arena = Arena.ofAuto();
    private final MemorySegment frame = arena.allocate(VNET + TCP + 65535 + 64, 8);
    private final MemorySegment slot = arena.allocate(CAPACITY + 64, 8);

    /** A virtio-net header + packet as {@code TunRxAgent} reads it: {@code in} is the whole frame. */
    @FuzzTest
    void rxFrame(final byte[] in) {
        final int len = in.length - VNET;
        if (len <= 0 || in.length > frame.byteSize()) {
            return;   // the agent counts a frame without a packet before classifying; a read never exceeds this
        }
        MemorySegment.copy(in, 0, frame, ValueLayout.JAVA_BYTE, 0, in.length);
        final int kind = TcpOffload.vnetFrame(frame, len, CAPACITY);
        final byte[] packet = Arrays.copyOfRange(in, VNET, in.length);
        final byte[] after = frame.asSlice(VNET, len).toArray(ValueLayout.JAVA_BYTE);
        final int gso = (in[TunIoctl.VNET_GSO_TYPE_OFFSET] & 0xFF) & ~TunIoctl.VIRTIO_NET_HDR_GSO_ECN;
        if (kind == TcpOffload.VNET_DROP) {
            return;
        }
        if (kind == TcpOffload.VNET_PLAIN) {
            assertEquals(TunIoctl.VIRTIO_NET_HDR_GSO_NONE, gso, "only a frame without GSO is a plain packet");
            assertTrue(len <= CAPACITY, "a plain packet fits a slot");
            if ((in[TunIoctl.VNET_FLAGS_OFFSET] & TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM) == 0) {
                assertArrayEquals(packet, after, "a packet without NEEDS_CSUM is untouched");
                return;
            }
            final int start = TcpOffloadTest.hostU16(in, TunIoctl.VNET_CSUM_START_OFFSET);
            final int field = start + TcpOffloadTest.hostU16(in, TunIoctl.VNET_CSUM_OFFSET_OFFSET);
            assertTrue(start < len && field + 2 <= len, "the checksum field lies inside the packet");
            final byte[] rest = after.clone();
            rest[field] = packet[field];
            rest[field + 1] = packet[field + 1];
            assertArrayEquals(packet, rest, "only the checksum field changes");
            // the field held the partial (pseudo-header) sum X; with the result in place, the sum from csum_start
            // plus X verifies (for a field on a 16-bit boundary from csum_start, as the kernel's always is: an odd
            // csum_offset gives a checksum no receiver accepts, harmless)
            if ((field - start) % 2 != 0) {
                return;
            }
            assertEquals(0xFFFF, TcpOffloadTest.sum(after, start, len, TcpOffloadTest.u16(packet, field)),
                    "the completed checksum verifies");
            return;
        }
        final int hdrLen = kind;
        final int mss = TcpOffloadTest.hostU16(in, TunIoctl.VNET_GSO_SIZE_OFFSET);
        assertEquals(TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6, gso, "only GSO_TCPV6 is split");
        assertEquals(6, (packet[0] & 0xFF) >>> 4, "IPv6");
        assertEquals(TcpOffload.NH_TCP, packet[6] & 0xFF, "TCP directly behind the IPv6 header");
        assertEquals(len - TCP, TcpOffloadTest.u16(packet, 4), "payload length agrees with the frame");
        assertEquals(TCP + ((packet[TCP + 12] & 0xFF) >>> 4) * 4, hdrLen, "header length from the data offset");
        assertTrue(hdrLen <= len && mss > 0 && hdrLen + mss <= CAPACITY, "every segment fits a slot");
        final int n = TcpOffload.segmentCount(len, hdrLen, mss);
        final long seq0 = TcpOffloadTest.u32(packet, TCP + 4);
        final ByteArrayBuilder payload = new ByteArrayBuilder();
        for (int i = 0; i < n; i++) {
            final int segLen = TcpOffload.writeSegment(frame, VNET, len, hdrLen, mss, i, slot, 0);
            assertTrue(segLen >= hdrLen && segLen <= hdrLen + mss && segLen <= CAPACITY);
            final byte[] s = slot.asSlice(0, segLen).toArray(ValueLayout.JAVA_BYTE);
            assertEquals(segLen - TCP, TcpOffloadTest.u16(s, 4), "segment payload length");
            assertEquals((seq0 + (long) i * mss) & 0xFFFFFFFFL, TcpOffloadTest.u32(s, TCP + 4), "sequence number");
            assertTrue(TcpOffloadTest.tcpChecksumValid(s), "segment checksum");
            final int flags = s[TCP + 13] & 0xFF;
            final int want = (packet[TCP + 13] & 0xFF) & (i < n - 1 ? ~(TcpOffload.FIN | TcpOffload.PSH) : 0xFF)
                    & (i > 0 ? ~TcpOffload.CWR : 0xFF);
            assertEquals(want, flags, "flags: FIN and PSH only on the last segment, CWR only on the first");
            final byte[] h = Arrays.copyOf(s, hdrLen);
            final byte[] orig = Arrays.copyOf(packet, hdrLen);
            for (final int o : new int[] {4, 5, TCP + 4, TCP + 5, TCP + 6, TCP + 7, TCP + 13, TCP + 16, TCP + 17}) {
                h[o] = 0;
                orig[o] = 0;
            }
            assertArrayEquals(orig, h, "the other header bytes are copied");
            payload.add(s, hdrLen, segLen);
        }
        assertArrayEquals(Arrays.copyOfRange(packet, hdrLen, len), payload.toArray(),
                "the segments carry exactly the super-segment's payload");
    }

    /**
     * Packets into a coalescer, three input bytes each ({@code op}, {@code a}, {@code b}): {@code op % 8} 0-4, the
     * next TCP segment of one flow (ACK, PSH when {@code op & 8}, payload {@code a * 8 + b % 8} bytes, the sequence
     * number continuing the flow unless {@code op & 16}, the window changed when {@code op & 32}); 5, a flush (end of
     * a worker cycle); 6, a UDP packet of {@code a} bytes; 7, {@code a} raw bytes taken from the input.
     */
    @FuzzTest
    void coalesce(final byte[] in) {
        // native memory per execution, freed at its end (an arena shared by the executions would only grow)
        try (Arena a = Arena.ofConfined()) {
            coalesceIn(in, a);
        }
    }

    private void coalesceIn(final byte[] in, final Arena arena) {
        final TcpOffloadTest.Recorder out = new TcpOffloadTest.Recorder();
        final TunCoalescer c = new TunCoalescer(out, arena);
        final List<byte[]> sent = new ArrayList<>();
        long seq = 1000;
        int window = 4096;
        int i = 0;
        while (i + 3 <= in.length && sent.size() < 256) {
            final int op = in[i] & 0xFF;
            final int a = in[i + 1] & 0xFF;
            final int b = in[i + 2] & 0xFF;
            i += 3;
            byte[] p = null;
            switch (op % 8) {
                case 5 -> assertEquals(0, c.flush(), "nothing lost");
                case 6 -> p = udp(a);
                case 7 -> {
                    p = Arrays.copyOfRange(in, i, Math.min(in.length, i + a));
                    i += p.length;
                }
                default -> {
                    if ((op & 32) != 0) {
                        window = (window + b * 97) & 0xFFFF;
                    }
                    final int n = a * 8 + b % 8;
                    final long s = (op & 16) != 0 ? seq + b + 1 : seq;
                    p = TcpOffloadTest.tcp(s, TcpOffload.ACK | ((op & 8) != 0 ? TcpOffload.PSH : 0), window,
                            new byte[0], payload(n, op ^ a), 0);
                    seq = s + n;
                }
            }
            if (p != null) {
                sent.add(p);
                final MemorySegment seg = arena.allocate(Math.max(1, p.length));
                MemorySegment.copy(p, 0, seg, ValueLayout.JAVA_BYTE, 0, p.length);
                assertEquals(p.length, c.write(seg, 0, p.length), "a write reports the packet's length");
            }
        }
        assertEquals(0, c.flush(), "nothing lost");
        final List<byte[]> got = new ArrayList<>();
        for (int k = 0; k < out.packets.size(); k++) {
            final byte[] h = out.headers.get(k);
            final byte[] w = out.packets.get(k);
            if (h[TunIoctl.VNET_GSO_TYPE_OFFSET] == TunIoctl.VIRTIO_NET_HDR_GSO_NONE) {
                assertArrayEquals(new byte[VNET], h, "a plain write has a zero header");
                got.add(w);
            } else {
                got.addAll(split(h, w, arena));
            }
        }
        assertEquals(sent.size(), got.size(), "one packet out per packet in");
        for (int k = 0; k < sent.size(); k++) {
            final byte[] want = sent.get(k);
            final byte[] have = got.get(k);
            if (!Arrays.equals(want, have)) {
                assertArrayEquals(maskTcp(want), maskTcp(have), "packet " + k + " comes out as it went in");
            }
        }
    }

    /**
     * @return {@link TcpOffloadTest#payload}{@code (n, seed)} for {@code n <= MAX_PAYLOAD}, {@code seed} 0-255: the
     *     first {@code n} bytes of the longest one ({@code Random.nextBytes} fills front to back), drawn
     *     once per seed instead of once per packet
     */
    private static byte[] payload(final int n, final int seed) {
        byte[] p = PAYLOADS[seed];
        if (p == null) {
            p = TcpOffloadTest.payload(MAX_PAYLOAD, seed);
            PAYLOADS[seed] = p;
        }
        return Arrays.copyOf(p, n);
    }

    /** A coalesced super-segment as the kernel takes it: completes the checksum, then splits it by gso_size. */
    private static List<byte[]> split(final byte[] h, final byte[] w, final Arena arena) {
        assertEquals(TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6, h[TunIoctl.VNET_GSO_TYPE_OFFSET]);
        assertEquals(TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM, h[TunIoctl.VNET_FLAGS_OFFSET]);
        assertTrue(w.length <= TunCoalescer.MAX_TOTAL, "a super-segment stays within 64 KiB");
        final MemorySegment src = arena.allocate(w.length);
        MemorySegment.copy(w, 0, src, ValueLayout.JAVA_BYTE, 0, w.length);
        final int hdrLen = TcpOffload.tcpv6HeaderLength(src, 0, w.length);
        assertEquals(TcpOffloadTest.hostU16(h, TunIoctl.VNET_HDR_LEN_OFFSET), hdrLen, "hdr_len");
        assertTrue(TcpOffload.completeChecksum(src, 0, w.length, TcpOffloadTest.hostU16(h,
                TunIoctl.VNET_CSUM_START_OFFSET), TcpOffloadTest.hostU16(h, TunIoctl.VNET_CSUM_OFFSET_OFFSET)));
        assertTrue(TcpOffloadTest.tcpChecksumValid(src.toArray(ValueLayout.JAVA_BYTE)),
                "the partial checksum completes to a valid one");
        final int mss = TcpOffloadTest.hostU16(h, TunIoctl.VNET_GSO_SIZE_OFFSET);
        final int n = TcpOffload.segmentCount(w.length, hdrLen, mss);
        assertTrue(n >= 2, "a super-segment holds two or more segments");
        final List<byte[]> out = new ArrayList<>();
        final MemorySegment dst = arena.allocate(hdrLen + mss);
        for (int i = 0; i < n; i++) {
            final int len = TcpOffload.writeSegment(src, 0, w.length, hdrLen, mss, i, dst, 0);
            out.add(dst.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE));
        }
        return out;
    }

    /** The packet with the TCP checksum and urgent pointer zeroed (the coalescer recomputes one, drops the other). */
    private static byte[] maskTcp(final byte[] p) {
        final byte[] m = p.clone();
        if (m.length >= TCP + 20) {
            Arrays.fill(m, TCP + 16, TCP + 20, (byte) 0);
        }
        return m;
    }

    private static byte[] udp(final int payload) {
        final ByteBuffer b = ByteBuffer.allocate(TCP + 8 + payload).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0x60000000).putShort((short) (8 + payload)).put((byte) 17).put((byte) 64);
        b.put(new byte[32]).putShort((short) 4000).putShort((short) 5000).putShort((short) (8 + payload));
        return b.array();
    }

    /** A growable byte array (the test's own, so the checks share nothing with the code under test). */
    private static final class ByteArrayBuilder {
        private byte[] buf = new byte[256];
        private int size;

        void add(final byte[] b, final int from, final int to) {
            final int n = to - from;
            if (size + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
            }
            System.arraycopy(b, from, buf, size, n);
            size += n;
        }

        byte[] toArray() {
            return Arrays.copyOf(buf, size);
        }
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path base = Path.of(System.getProperty("fips.fuzz.writeSeeds"), "net/fips/dataplane/tun",
                "TunOffloadJazzerTestInputs");
        final byte[] opts = {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9};
        final byte[] big = TcpOffloadTest.tcp(77, TcpOffload.ACK | TcpOffload.PSH | TcpOffload.CWR, 1000, opts,
                TcpOffloadTest.payload(5000, 3), 0);
        final byte[] small = TcpOffloadTest.tcp(5, TcpOffload.ACK, 1000, new byte[0], TcpOffloadTest.payload(300, 4),
                0);
        final List<byte[]> rx = List.of(
                concat(header(0, TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6, TCP + 32, 1200, TCP, 16), big),
                concat(header(TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM, 0, 0, 0, TCP, 16), small),
                concat(header(0, 0, 0, 0, 0, 0), small));
        final List<byte[]> co = List.of(
                new byte[] {0, 100, 0, 0, 100, 0, 0, 100, 0, 8, 50, 0},
                new byte[] {0, 100, 0, 16, 100, 0, 0, 100, 0, 5, 0, 0, 0, 100, 0, 6, 20, 0, 0, 10, 3},
                new byte[] {32, 100, 0, 0, 100, 1, 7, 4, 0, 1, 2, 3, 4, 0, 100, 0});
        for (final String m : List.of("rxFrame", "coalesce")) {
            final Path dir = Files.createDirectories(base.resolve(m));
            final List<byte[]> seeds = "rxFrame".equals(m) ? rx : co;
            for (int i = 0; i < seeds.size(); i++) {
                Files.write(dir.resolve("seed-" + i), seeds.get(i));
            }
        }
    }

    private static byte[] header(final int flags, final int gso, final int hdrLen, final int gsoSize,
                                 final int csumStart, final int csumOffset) {
        final ByteBuffer b = ByteBuffer.allocate(VNET).order(ByteOrder.nativeOrder());
        b.put((byte) flags).put((byte) gso).putShort((short) hdrLen).putShort((short) gsoSize)
                .putShort((short) csumStart).putShort((short) csumOffset);
        return b.array();
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
