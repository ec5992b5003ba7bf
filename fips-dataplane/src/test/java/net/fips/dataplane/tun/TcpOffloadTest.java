package net.fips.dataplane.tun;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.ffm.linux.TunIoctl;
import net.fips.dataplane.ipv6.InetChecksum;

/**
 * Pins the TUN offload arithmetic: TSO super-segments split into MTU-sized segments (sizes, sequence numbers,
 * flags, checksums checked by an independent byte-array implementation), partial checksums completed, and the
 * receive-side coalescing (what joins a train, what ends it, what passes untouched), plus a seeded fuzz.
 */
class TcpOffloadTest {
    private static final byte[] SRC = addr(0xfd, 0x41, 1);
    private static final byte[] DST = addr(0xfd, 0xdf, 2);

    private static byte[] addr(final int a, final int b, final int last) {
        final byte[] x = new byte[16];
        x[0] = (byte) a;
        x[1] = (byte) b;
        x[15] = (byte) last;
        return x;
    }

    /** An IPv6/TCP packet: ports 5000 -> 5201, given seq/flags/window, {@code opts} option bytes, payload. */
    static byte[] tcp(final long seq, final int flags, final int window, final byte[] opts, final byte[] payload,
                      final int trafficClass) {
        final int thl = 20 + opts.length;
        final ByteBuffer b = ByteBuffer.allocate(40 + thl + payload.length).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0x60000000 | (trafficClass << 20) | 0x12345);
        b.putShort((short) (thl + payload.length));
        b.put((byte) 6).put((byte) 64).put(SRC).put(DST);
        b.putShort((short) 5000).putShort((short) 5201).putInt((int) seq).putInt(0x0A0B0C0D);
        b.put((byte) ((thl / 4) << 4)).put((byte) flags).putShort((short) window).putShort((short) 0)
                .putShort((short) 0);
        b.put(opts).put(payload);
        final byte[] p = b.array();
        final int c = ~sum(p, 40, p.length, pseudo(p, p.length - 40)) & 0xFFFF;
        p[56] = (byte) (c >>> 8);
        p[57] = (byte) c;
        return p;
    }

    static byte[] payload(final int n, final int seed) {
        final byte[] p = new byte[n];
        new Random(seed).nextBytes(p);
        return p;
    }

    /** Independent RFC 1071 sum over a byte array (folded, not complemented). */
    static int sum(final byte[] b, final int from, final int to, final int initial) {
        long s = initial;
        for (int i = from; i < to; i += 2) {
            s += ((b[i] & 0xFF) << 8) | (i + 1 < to ? b[i + 1] & 0xFF : 0);
        }
        while ((s >>> 16) != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }

    static int pseudo(final byte[] p, final int upperLen) {
        return sum(p, 8, 40, 0) + (upperLen >>> 16) + (upperLen & 0xFFFF) + 6;
    }

    static boolean tcpChecksumValid(final byte[] p) {
        return sum(p, 40, p.length, pseudo(p, p.length - 40)) == 0xFFFF;
    }

    static int u16(final byte[] p, final int o) {
        return ((p[o] & 0xFF) << 8) | (p[o + 1] & 0xFF);
    }

    static long u32(final byte[] p, final int o) {
        return ByteBuffer.wrap(p, o, 4).getInt() & 0xFFFFFFFFL;
    }

    static MemorySegment native1(final Arena a, final byte[] p) {
        final MemorySegment s = a.allocate(p.length + 64);
        MemorySegment.copy(p, 0, s, ValueLayout.JAVA_BYTE, 16, p.length);
        return s;
    }

    @Test
    void superSegmentSplitsIntoMssSizedSegmentsWithFixedHeaders() {
        final byte[] opts = {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9};   // NOP NOP timestamps
        final byte[] data = payload(5000, 1);
        final long seq0 = 0xFFFFF000L;   // wraps past 2^32 inside the train
        final byte[] sup = tcp(seq0, TcpOffload.ACK | TcpOffload.PSH | TcpOffload.FIN | TcpOffload.CWR, 512, opts,
                data, 0);
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment src = native1(a, sup);
            final int hdr = TcpOffload.tcpv6HeaderLength(src, 16, sup.length);
            assertEquals(72, hdr);
            final int mss = 1208;
            final int n = TcpOffload.segmentCount(sup.length, hdr, mss);
            assertEquals(5, n);
            final MemorySegment dst = a.allocate(2000);
            final ByteArrayOutputStream joined = new ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                dst.fill((byte) 0x55);
                final int len = TcpOffload.writeSegment(src, 16, sup.length, hdr, mss, i, dst, 8);
                final byte[] seg = dst.asSlice(8, len).toArray(ValueLayout.JAVA_BYTE);
                final int chunk = i < n - 1 ? mss : 5000 - 4 * mss;
                assertEquals(hdr + chunk, len, "segment " + i);
                assertEquals(len - 40, u16(seg, 4), "payload length " + i);
                assertEquals((seq0 + (long) i * mss) & 0xFFFFFFFFL, u32(seg, 44), "seq " + i);
                final int flags = seg[53] & 0xFF;
                assertEquals(i == n - 1, (flags & TcpOffload.PSH) != 0, "PSH only on the last, " + i);
                assertEquals(i == n - 1, (flags & TcpOffload.FIN) != 0, "FIN only on the last, " + i);
                assertEquals(i == 0, (flags & TcpOffload.CWR) != 0, "CWR only on the first, " + i);
                assertTrue((flags & TcpOffload.ACK) != 0);
                assertTrue(tcpChecksumValid(seg), "checksum " + i);
                assertArrayEquals(Arrays.copyOfRange(sup, 0, 4), Arrays.copyOfRange(seg, 0, 4), "tc/flow " + i);
                assertArrayEquals(Arrays.copyOfRange(sup, 6, 40), Arrays.copyOfRange(seg, 6, 40), "addrs " + i);
                assertArrayEquals(opts, Arrays.copyOfRange(seg, 60, 72), "options " + i);
                joined.writeBytes(Arrays.copyOfRange(seg, hdr, len));
                assertEquals((byte) 0x55, dst.get(ValueLayout.JAVA_BYTE, 8 + len), "nothing written past " + i);
            }
            assertArrayEquals(data, joined.toByteArray(), "the payload survives byte for byte");
        }
    }

    @Test
    void headerLengthRefusesWhatCannotBeSplit() {
        final byte[] ok = tcp(1, TcpOffload.ACK, 100, new byte[0], payload(100, 2), 0);
        try (Arena a = Arena.ofConfined()) {
            assertEquals(60, TcpOffload.tcpv6HeaderLength(native1(a, ok), 16, ok.length));
            final byte[] ext = ok.clone();
            ext[6] = 0;   // hop-by-hop options header first
            assertEquals(-1, TcpOffload.tcpv6HeaderLength(native1(a, ext), 16, ext.length));
            final byte[] udp = ok.clone();
            udp[6] = 17;
            assertEquals(-1, TcpOffload.tcpv6HeaderLength(native1(a, udp), 16, udp.length));
            final byte[] v4 = ok.clone();
            v4[0] = 0x45;
            assertEquals(-1, TcpOffload.tcpv6HeaderLength(native1(a, v4), 16, v4.length));
            final byte[] badDoff = ok.clone();
            badDoff[52] = (byte) 0xF0;   // 60-byte TCP header in a packet with 100 payload bytes is fine...
            assertEquals(100, TcpOffload.tcpv6HeaderLength(native1(a, badDoff), 16, badDoff.length));
            badDoff[52] = 0x40;   // ...a 16-byte one is not
            assertEquals(-1, TcpOffload.tcpv6HeaderLength(native1(a, badDoff), 16, badDoff.length));
            assertEquals(-1, TcpOffload.tcpv6HeaderLength(native1(a, ok), 16, ok.length - 1), "length mismatch");
        }
    }

    @Test
    void partialChecksumIsCompleted() {
        final byte[] p = tcp(77, TcpOffload.ACK, 100, new byte[0], payload(333, 3), 0);
        final byte[] partial = p.clone();
        final int ph = pseudo(p, p.length - 40);   // what the kernel leaves in the field with CHECKSUM_PARTIAL
        partial[56] = (byte) (ph >>> 8);
        partial[57] = (byte) ph;
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment s = native1(a, partial);
            assertTrue(TcpOffload.completeChecksum(s, 16, p.length, 40, 16));
            assertArrayEquals(p, s.asSlice(16, p.length).toArray(ValueLayout.JAVA_BYTE));
            assertFalse(TcpOffload.completeChecksum(s, 16, p.length, p.length - 1, 16), "offset past the end");
            assertFalse(TcpOffload.completeChecksum(s, 16, p.length, 40, p.length), "field past the end");
        }
    }

    /** Records what the coalescer writes. */
    static final class Recorder implements VnetOutput {
        final List<byte[]> packets = new ArrayList<>();
        final List<byte[]> headers = new ArrayList<>();
        int failNext;

        @Override
        public int write(final MemorySegment segment, final long offset, final int length) {
            return writeVnet(MemorySegment.ofArray(new byte[TunIoctl.VIRTIO_NET_HDR_SIZE]), segment, offset, length);
        }

        @Override
        public int writeVnet(final MemorySegment header, final MemorySegment segment, final long offset,
                             final int length) {
            if (failNext > 0) {
                failNext--;
                return -11;
            }
            headers.add(header.asSlice(0, TunIoctl.VIRTIO_NET_HDR_SIZE).toArray(ValueLayout.JAVA_BYTE));
            packets.add(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
            return length;
        }
    }

    static int hostU16(final byte[] h, final int o) {
        return ByteBuffer.wrap(h, o, 2).order(ByteOrder.nativeOrder()).getShort() & 0xFFFF;
    }

    private static int write(final TunCoalescer c, final Arena a, final byte[] p) {
        return c.write(native1(a, p), 16, p.length);
    }

    @Test
    void consecutiveSegmentsCoalesceIntoOneGsoWrite() {
        try (Arena a = Arena.ofConfined()) {
            final Recorder out = new Recorder();
            final TunCoalescer c = new TunCoalescer(out, a);
            final byte[] opts = {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9};
            final ByteArrayOutputStream all = new ByteArrayOutputStream();
            long seq = 1000;
            for (int i = 0; i < 4; i++) {
                final int n = i < 3 ? 1208 : 500;
                final byte[] d = payload(n, 10 + i);
                all.writeBytes(d);
                final byte[] p = tcp(seq, TcpOffload.ACK | (i == 3 ? TcpOffload.PSH : 0), 300, opts, d, 0);
                assertEquals(p.length, write(c, a, p));
                seq += n;
            }
            assertEquals(0, c.flush());
            assertEquals(1, out.packets.size(), "one write for the train (the short PSH segment ended it)");
            final byte[] sup = out.packets.get(0);
            final byte[] h = out.headers.get(0);
            assertEquals(TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM, h[0]);
            assertEquals(TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6, h[1]);
            assertEquals(72, hostU16(h, 2), "hdr_len");
            assertEquals(1208, hostU16(h, 4), "gso_size");
            assertEquals(40, hostU16(h, 6), "csum_start");
            assertEquals(16, hostU16(h, 8), "csum_offset");
            assertEquals(72 + 3 * 1208 + 500, sup.length);
            assertEquals(sup.length - 40, u16(sup, 4));
            assertEquals(1000, u32(sup, 44), "the first segment's sequence number");
            assertEquals(TcpOffload.ACK | TcpOffload.PSH, sup[53] & 0xFF, "PSH of the last segment carried");
            assertEquals(sum(new byte[0], 0, 0, pseudo(sup, sup.length - 40)), u16(sup, 56),
                    "partial checksum = pseudo-header sum");
            assertArrayEquals(all.toByteArray(), Arrays.copyOfRange(sup, 72, sup.length));
            assertEquals(4, c.coalescedSegments());
            assertEquals(1, c.superSegments());
        }
    }

    @Test
    void aLostOrReorderedSegmentEndsTheTrain() {
        try (Arena a = Arena.ofConfined()) {
            final Recorder out = new Recorder();
            final TunCoalescer c = new TunCoalescer(out, a);
            final byte[] s0 = tcp(0, TcpOffload.ACK, 300, new byte[0], payload(1000, 1), 0);
            final byte[] s1 = tcp(1000, TcpOffload.ACK, 300, new byte[0], payload(1000, 2), 0);
            final byte[] s3 = tcp(3000, TcpOffload.ACK, 300, new byte[0], payload(1000, 4), 0);   // s2 lost
            final byte[] s2 = tcp(2000, TcpOffload.ACK, 300, new byte[0], payload(1000, 3), 0);   // arrives late
            write(c, a, s0);
            write(c, a, s1);
            write(c, a, s3);
            write(c, a, s2);
            c.flush();
            assertEquals(3, out.packets.size());
            assertEquals(60 + 2000, out.packets.get(0).length, "s0+s1");
            assertEquals(TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6, out.headers.get(0)[1]);
            assertArrayEquals(s3, out.packets.get(1), "s3 alone, untouched, zero header");
            assertArrayEquals(new byte[10], out.headers.get(1));
            assertArrayEquals(s2, out.packets.get(2), "s2 alone: it does not continue s3");
            assertTrue(tcpChecksumValid(out.packets.get(1)));
        }
    }

    @Test
    void differingHeadersNonTcpAndControlSegmentsPassUntouchedInOrder() {
        try (Arena a = Arena.ofConfined()) {
            final Recorder out = new Recorder();
            final TunCoalescer c = new TunCoalescer(out, a);
            final byte[] s0 = tcp(0, TcpOffload.ACK, 300, new byte[0], payload(1000, 1), 0);
            final byte[] otherWindow = tcp(1000, TcpOffload.ACK, 301, new byte[0], payload(1000, 2), 0);
            final byte[] ce = tcp(2000, TcpOffload.ACK, 301, new byte[0], payload(1000, 3), 3);
            final byte[] syn = tcp(5, TcpOffload.SYN, 300, new byte[0], new byte[0], 0);
            final byte[] pureAck = tcp(9, TcpOffload.ACK, 300, new byte[0], new byte[0], 0);
            final byte[] udp = tcp(0, TcpOffload.ACK, 300, new byte[0], payload(100, 5), 0);
            udp[6] = 17;
            final byte[] ext = tcp(0, TcpOffload.ACK, 300, new byte[0], payload(100, 6), 0);
            ext[6] = 0;
            final byte[] bigger = tcp(3000, TcpOffload.ACK, 301, new byte[0], payload(1100, 7), 3);
            for (final byte[] p : List.of(s0, otherWindow, ce, syn, pureAck, udp, ext, bigger)) {
                write(c, a, p);
            }
            c.flush();
            final List<byte[]> expect = List.of(s0, otherWindow, ce, syn, pureAck, udp, ext, bigger);
            assertEquals(expect.size(), out.packets.size(), "nothing coalesced");
            for (int i = 0; i < expect.size(); i++) {
                assertArrayEquals(expect.get(i), out.packets.get(i), "packet " + i + " untouched, in order");
                assertArrayEquals(new byte[10], out.headers.get(i), "zero header " + i);
            }
            assertEquals(0, c.coalescedSegments());
        }
    }

    @Test
    void aFailedTrainWriteIsReportedAsLostPackets() {
        try (Arena a = Arena.ofConfined()) {
            final Recorder out = new Recorder();
            final TunCoalescer c = new TunCoalescer(out, a);
            write(c, a, tcp(0, TcpOffload.ACK, 300, new byte[0], payload(1000, 1), 0));
            write(c, a, tcp(1000, TcpOffload.ACK, 300, new byte[0], payload(1000, 2), 0));
            write(c, a, tcp(2000, TcpOffload.ACK, 300, new byte[0], payload(1000, 3), 0));
            out.failNext = 1;
            assertEquals(3, c.flush(), "three segments lost with the write");
            assertEquals(0, c.flush());
        }
    }

    @Test
    void trainStopsBelowSixtyFourKiB() {
        try (Arena a = Arena.ofConfined()) {
            final Recorder out = new Recorder();
            final TunCoalescer c = new TunCoalescer(out, a);
            long seq = 0;
            for (int i = 0; i < 100; i++) {
                write(c, a, tcp(seq, TcpOffload.ACK, 300, new byte[0], payload(1208, i), 0));
                seq += 1208;
            }
            c.flush();
            int total = 0;
            for (final byte[] p : out.packets) {
                assertTrue(p.length <= TunCoalescer.MAX_TOTAL, "train of " + p.length);
                total += p.length - 60;
            }
            assertEquals(100 * 1208, total);
            assertTrue(out.packets.size() >= 2 && out.packets.size() <= 3, out.packets.size() + " writes");
        }
    }

    /** The word-parallel checksum agrees with a plain 16-bit big-endian sum at any offset, length and start sum. */
    @Test
    void inetChecksumMatchesAByteWiseSum() {
        final Random r = new Random(0xC5C5L);
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment m = a.allocate(3000);
            for (int round = 0; round < 5000; round++) {
                final byte[] b = new byte[r.nextInt(2000)];
                r.nextBytes(b);
                if (r.nextInt(8) == 0) {
                    Arrays.fill(b, (byte) 0xFF);
                }
                final int off = r.nextInt(64);
                MemorySegment.copy(b, 0, m, ValueLayout.JAVA_BYTE, off, b.length);
                final int start = r.nextInt(0x10000);
                final int expect = sum(b, 0, b.length, start);
                final int got = InetChecksum.fold(
                        InetChecksum.add(m, off, b.length, start));
                assertEquals(expect == 0xFFFF ? 0 : expect, got == 0xFFFF ? 0 : got, "length " + b.length);
            }
        }
    }

    /** Split then coalesce is the identity on the payload; random inputs never throw or write out of bounds. */
    @Test
    void fuzzSplitCompleteAndCoalesce() {
        final Random r = new Random(0x7C9_0FF1L);
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment src = a.allocate(70_000);
            final MemorySegment dst = a.allocate(2000 + 64);
            final Recorder out = new Recorder();
            final TunCoalescer c = new TunCoalescer(out, a);
            for (int round = 0; round < 3000; round++) {
                byte[] p = tcp(r.nextInt(), TcpOffload.ACK | (r.nextBoolean() ? TcpOffload.PSH : 0),
                        r.nextInt(65536), new byte[4 * r.nextInt(4)], payload(r.nextInt(6000), round), r.nextInt(4));
                for (int k = r.nextInt(3); k > 0; k--) {
                    p[r.nextInt(p.length)] = (byte) r.nextInt(256);
                }
                if (r.nextInt(8) == 0) {
                    p = Arrays.copyOf(p, r.nextInt(p.length + 1));
                }
                src.fill((byte) 0);
                MemorySegment.copy(p, 0, src, ValueLayout.JAVA_BYTE, 0, p.length);
                final int h = TcpOffload.tcpv6HeaderLength(src, 0, p.length);
                final int mss = 1 + r.nextInt(1400);
                if (h > 0 && h + mss <= 2000) {
                    final int n = TcpOffload.segmentCount(p.length, h, mss);
                    int sum = 0;
                    for (int i = 0; i < n; i++) {
                        final int len = TcpOffload.writeSegment(src, 0, p.length, h, mss, i, dst, 32);
                        assertTrue(len >= h && len <= h + mss);
                        assertTrue(tcpChecksumValid(dst.asSlice(32, len).toArray(ValueLayout.JAVA_BYTE)));
                        sum += len - h;
                        assertEquals(TcpOffload.tcpv6HeaderLength(dst, 32, len), h);
                    }
                    assertEquals(p.length - h, sum);
                }
                TcpOffload.completeChecksum(src, 0, p.length, r.nextInt(p.length + 2) - 1, r.nextInt(40) - 1);
                c.write(src, 0, p.length);
                if (r.nextInt(10) == 0) {
                    assertEquals(0, c.flush());
                }
            }
            c.flush();
            for (final byte[] w : out.packets) {
                assertTrue(w.length <= 65535 + 40);
            }
        }
    }
}
