package net.fips.dataplane.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The stream framing of transports.md §3.1 and §8.3: packets found by their prefix however the stream is split or
 * merged, and every violation (bad version, e.g. a TLS record; bad phase; a handshake length other than 110/65; an
 * established payload_len above mtu - 32) reported so the connection is closed. Includes a bounded, seeded fuzz:
 * any bytes give a packet length, NEED_MORE or a violation, never an exception or a read outside the window.
 */
class FmpStreamFramerTest {
    static final int MTU = 1400;

    static byte[] established(final int payloadLen, final int fill) {
        final byte[] p = new byte[32 + payloadLen];
        p[0] = 0x00;
        p[1] = 0x01;
        p[2] = (byte) payloadLen;
        p[3] = (byte) (payloadLen >>> 8);
        for (int i = 4; i < p.length; i++) {
            p[i] = (byte) (fill + i);
        }
        return p;
    }

    static byte[] handshake(final int phase) {
        final int total = phase == 1 ? 114 : 69;
        final byte[] p = new byte[total];
        p[0] = (byte) phase;
        p[2] = (byte) (total - 4);
        for (int i = 4; i < total; i++) {
            p[i] = (byte) (i * 7);
        }
        return p;
    }

    /** Feeds {@code stream} in the given chunk sizes through a receive buffer, as the transport's loop does. */
    static List<byte[]> deframe(final byte[] stream, final int[] chunks, final int[] violation) {
        final MemorySegment buf = MemorySegment.ofArray(new byte[70_000]);
        final List<byte[]> out = new ArrayList<>();
        int start = 0;
        int end = 0;
        int fed = 0;
        int k = 0;
        while (fed < stream.length) {
            final int n = Math.min(chunks[k++ % chunks.length], stream.length - fed);
            MemorySegment.copy(MemorySegment.ofArray(stream), fed, buf, end, n);
            fed += n;
            end += n;
            while (true) {
                final int len = FmpStreamFramer.next(buf, start, end - start, MTU);
                if (len == FmpStreamFramer.NEED_MORE) {
                    break;
                }
                if (len < 0) {
                    violation[0] = len;
                    return out;
                }
                out.add(buf.asSlice(start, len).toArray(ValueLayout.JAVA_BYTE));
                start += len;
            }
            if (start == end) {
                start = 0;
                end = 0;
            }
        }
        return out;
    }

    @Test
    void splitAtEveryBoundaryAndMerged() {
        final List<byte[]> packets = List.of(handshake(1), handshake(2), established(0, 1), established(1368, 2),
                established(5, 3), established(MTU - 32, 4));
        final ByteArrayOutputStream s = new ByteArrayOutputStream();
        packets.forEach(s::writeBytes);
        final byte[] stream = s.toByteArray();
        for (final int[] chunks : new int[][]{{1}, {2}, {3}, {4}, {113}, {stream.length}, {1, 500, 7}}) {
            final int[] v = {0};
            final List<byte[]> got = deframe(stream, chunks, v);
            assertEquals(0, v[0]);
            assertEquals(packets.size(), got.size());
            for (int i = 0; i < packets.size(); i++) {
                assertArrayEquals(packets.get(i), got.get(i));
            }
        }
    }

    @Test
    void violationsAreReported() {
        final MemorySegment tls = MemorySegment.ofArray(new byte[]{0x16, 0x03, 0x01, 0x02, 0x00});
        assertEquals(FmpStreamFramer.BAD_VERSION, FmpStreamFramer.next(tls, 0, 5, MTU));
        assertEquals(FmpStreamFramer.BAD_VERSION, FmpStreamFramer.next(tls, 0, 1, MTU), "one byte is enough");
        assertEquals(FmpStreamFramer.BAD_PHASE,
                FmpStreamFramer.next(MemorySegment.ofArray(new byte[]{0x03, 0, 0, 0}), 0, 4, MTU));
        final byte[] msg1 = handshake(1);
        msg1[2] = 111;
        assertEquals(FmpStreamFramer.BAD_LENGTH, FmpStreamFramer.next(MemorySegment.ofArray(msg1), 0, 114, MTU));
        final byte[] msg2 = handshake(2);
        msg2[2] = 64;
        assertEquals(FmpStreamFramer.BAD_LENGTH, FmpStreamFramer.next(MemorySegment.ofArray(msg2), 0, 69, MTU));
        final byte[] big = established(MTU - 31, 0);
        assertEquals(FmpStreamFramer.BAD_LENGTH, FmpStreamFramer.next(MemorySegment.ofArray(big), 0, 4, MTU),
                "an oversize length is refused before its bytes arrive");
        final byte[] max = {0x00, 0x00, (byte) 0xFF, (byte) 0xFF};
        assertEquals(FmpStreamFramer.BAD_LENGTH, FmpStreamFramer.next(MemorySegment.ofArray(max), 0, 4, MTU));
        assertEquals(FmpStreamFramer.NEED_MORE,
                FmpStreamFramer.next(MemorySegment.ofArray(established(10, 0)), 0, 41, MTU));
    }

    @Test
    void garbageAfterGoodPacketsStopsAtTheViolation() {
        final ByteArrayOutputStream s = new ByteArrayOutputStream();
        s.writeBytes(established(20, 0));
        s.writeBytes(new byte[]{0x16, 0x03, 0x01});
        final int[] v = {0};
        final List<byte[]> got = deframe(s.toByteArray(), new int[]{1}, v);
        assertEquals(1, got.size());
        assertEquals(FmpStreamFramer.BAD_VERSION, v[0]);
    }

    /**
     * {@link FmpStreamFramer#next} with its contract checked: a packet length within the window and the MTU,
     * {@code NEED_MORE}, or one of the violation codes. Shared with {@link FmpStreamFramerJazzerTest}.
     */
    static int next(final MemorySegment seg, final long off, final int avail, final int mtu) {
        final int len = FmpStreamFramer.next(seg, off, avail, mtu);
        if (len > 0) {
            assertTrue(len <= avail && len <= mtu, "len " + len + " avail " + avail + " mtu " + mtu);
        } else if (len < 0) {
            assertTrue(len >= FmpStreamFramer.BAD_LENGTH, "code " + len);
        }
        return len;
    }

    /** Random and mutated streams: never an exception, lengths always within the window and the MTU. */
    @Test
    void fuzz() {
        final Random r = new Random(0x7C9_F1F5L);
        final byte[] backing = new byte[4096];
        final MemorySegment seg = MemorySegment.ofArray(backing);
        int packets = 0;
        int violations = 0;
        for (int i = 0; i < 50_000; i++) {
            r.nextBytes(backing);
            if (r.nextBoolean()) {
                // Bias towards plausible prefixes so the length paths are exercised.
                backing[100] = (byte) r.nextInt(4);
                if (r.nextBoolean()) {
                    final int plen = r.nextInt(1500);
                    backing[102] = (byte) plen;
                    backing[103] = (byte) (plen >>> 8);
                }
            }
            final int avail = r.nextInt(1600);
            final int mtu = 1280 + r.nextInt(200);
            final int len = next(seg, 100, avail, mtu);
            if (len > 0) {
                packets++;
            } else if (len < 0) {
                violations++;
            }
        }
        assertTrue(packets > 100 && violations > 100, packets + " packets, " + violations + " violations");
    }
}
