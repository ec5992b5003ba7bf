package net.fips.dataplane.ipv6;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

/** MSS clamping and the L4 checksum recompute, after tcp_mss.rs and its tests. */
class TcpMssClampTest {
    private static final byte[] SRC = TestPackets.addr("fd00::1");
    private static final byte[] DST = TestPackets.addr("fd00::2");

    /** A 40-byte TCP header (data offset 10) with the given flags and options (zero padded), valid checksum. */
    private static byte[] syn(final int flags, final byte[] options) {
        final byte[] tcp = new byte[40];
        tcp[0] = (byte) (12345 >>> 8);
        tcp[1] = (byte) 12345;
        tcp[3] = 80;
        tcp[6] = (byte) (1000 >>> 8);
        tcp[7] = (byte) 1000;
        tcp[12] = (byte) 0xa0;
        tcp[13] = (byte) flags;
        tcp[14] = (byte) (8192 >>> 8);
        System.arraycopy(options, 0, tcp, 20, options.length);
        final byte[] p = TestPackets.ipv6(0, 0, 6, 64, SRC, DST, tcp);
        fixChecksum(p);
        return p;
    }

    private static byte[] syn(final int mss) {
        return syn(0x02, new byte[] {2, 4, (byte) (mss >>> 8), (byte) mss, 0});
    }

    /** Independent TCP checksum fix (test-side). */
    private static void fixChecksum(final byte[] p) {
        final int len = p.length - 40;
        p[56] = 0;
        p[57] = 0;
        final int c = ~TestPackets.sum16(p, 40, 40 + len, TestPackets.pseudo(p, len, 6)) & 0xFFFF;
        p[56] = (byte) (c >>> 8);
        p[57] = (byte) c;
    }

    private static int clamp(final byte[] p, final int max) {
        return TcpMssClamp.clamp(MemorySegment.ofArray(p), 0, p.length, max);
    }

    private static int mssAt(final byte[] p, final int i) {
        return ((p[i] & 0xFF) << 8) | (p[i + 1] & 0xFF);
    }

    /** Asserts the clamp changed only the MSS value and the checksum, and the checksum verifies. */
    private static void assertOnlyMssAndChecksumChanged(final byte[] before, final byte[] after, final int mssAt) {
        for (int i = 0; i < before.length; i++) {
            if (i == 56 || i == 57 || i == mssAt || i == mssAt + 1) {
                continue;
            }
            assertEquals(before[i], after[i], "byte " + i);
        }
        assertTrue(TestPackets.upperChecksumValid(after, after.length - 40, 6));
    }

    @Test
    void lowersALargeMss() {
        final byte[] p = syn(1460);
        assertEquals(0x09a1, mssAt(p, 56), "fixture checksum, computed independently");
        final byte[] before = p.clone();
        assertEquals(TcpMssClamp.CLAMPED, clamp(p, 1200));
        assertEquals(1200, mssAt(p, 62));
        assertEquals(0x0aa5, mssAt(p, 56), "golden checksum after the clamp");
        assertOnlyMssAndChecksumChanged(before, p, 62);
    }

    @Test
    void leavesSmallOrEqualMssAlone() {
        for (final int mss : new int[] {1000, 1200}) {
            final byte[] p = syn(mss);
            final byte[] before = p.clone();
            assertEquals(TcpMssClamp.UNCHANGED, clamp(p, 1200));
            assertArrayEquals(before, p);
        }
    }

    @Test
    void clampsSynAckButNotOtherSegments() {
        final byte[] synAck = syn(0x12, new byte[] {2, 4, 0x05, (byte) 0xb4});
        final byte[] before = synAck.clone();
        assertEquals(TcpMssClamp.CLAMPED, clamp(synAck, 1143));
        assertEquals(1143, mssAt(synAck, 62));
        assertOnlyMssAndChecksumChanged(before, synAck, 62);

        final byte[] ack = syn(0x10, new byte[] {2, 4, 0x05, (byte) 0xb4});
        final byte[] ackBefore = ack.clone();
        assertEquals(TcpMssClamp.NOT_APPLICABLE, clamp(ack, 1200));
        assertArrayEquals(ackBefore, ack);

        final byte[] udp = new byte[80];
        udp[0] = 0x60;
        udp[6] = 17;
        assertEquals(TcpMssClamp.NOT_APPLICABLE, clamp(udp, 1200));
        assertEquals(TcpMssClamp.NOT_APPLICABLE, clamp(new byte[59], 1200));
        final byte[] v4 = syn(1460);
        v4[0] = 0x45;
        assertEquals(TcpMssClamp.NOT_APPLICABLE, clamp(v4, 1200));
    }

    @Test
    void findsTheMssAfterOtherOptionsAndSkipsOddLengthMss() {
        // NOP, NOP, SACK-permitted (4,2), window scale (3,3,7), a bogus kind-2 option of length 3, then MSS
        final byte[] p = syn(0x02, new byte[] {1, 1, 4, 2, 3, 3, 7, 2, 3, 9, 2, 4, 0x23, 0x28, 0});
        final byte[] before = p.clone();
        assertEquals(TcpMssClamp.CLAMPED, clamp(p, 1143));
        assertEquals(1143, mssAt(p, 60 + 12));
        assertOnlyMssAndChecksumChanged(before, p, 72);
    }

    @Test
    void onlyTheFirstMssIsExamined() {
        final byte[] p = syn(0x02, new byte[] {2, 4, 0x01, 0x00, 2, 4, (byte) 0xff, (byte) 0xff});
        final byte[] before = p.clone();
        assertEquals(TcpMssClamp.UNCHANGED, clamp(p, 1200));
        assertArrayEquals(before, p);
    }

    @Test
    void noMssOptionIsUnchanged() {
        for (final byte[] opts : new byte[][] {{}, {1, 1, 1, 1}, {0, 2, 4, 0x05, (byte) 0xb4}, {3, 3, 7}}) {
            final byte[] p = syn(0x02, opts);
            final byte[] before = p.clone();
            assertEquals(TcpMssClamp.UNCHANGED, clamp(p, 1200));
            assertArrayEquals(before, p);
        }
        // data offset 5: no options at all
        final byte[] bare = TestPackets.ipv6(0, 0, 6, 64, SRC, DST, new byte[20]);
        bare[52] = 0x50;
        bare[53] = 0x02;
        assertEquals(TcpMssClamp.UNCHANGED, clamp(bare, 1200));
    }

    @Test
    void malformedOptionsLeaveThePacketUntouched() {
        final byte[][] bad = {
            {3, 0, 2, 4, 0x05, (byte) 0xb4}, // length 0
            {3, 1, 2, 4, 0x05, (byte) 0xb4}, // length 1
            {3, 30}, // runs past the 40-byte header
        };
        for (final byte[] opts : bad) {
            final byte[] p = syn(0x02, opts);
            final byte[] before = p.clone();
            assertEquals(TcpMssClamp.MALFORMED, clamp(p, 1200));
            assertArrayEquals(before, p);
        }
        // a kind byte in the last option position with no room for its length
        final byte[] last = syn(0x02, new byte[] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2});
        assertEquals(TcpMssClamp.MALFORMED, clamp(last, 1200));
        // data offset below 5
        final byte[] low = syn(1460);
        low[52] = 0x40;
        final byte[] lowBefore = low.clone();
        assertEquals(TcpMssClamp.MALFORMED, clamp(low, 1200));
        assertArrayEquals(lowBefore, low);
        // data offset beyond the packet
        final byte[] high = syn(1460);
        high[52] = (byte) 0xf0;
        assertEquals(TcpMssClamp.MALFORMED, clamp(high, 1200));
        // MSS option cut by the header end: data offset 6 (24 bytes) with MSS at 22..26
        final byte[] cut = syn(0x02, new byte[] {1, 1, 2, 4, 0x05, (byte) 0xb4});
        cut[52] = 0x60;
        assertEquals(TcpMssClamp.MALFORMED, clamp(cut, 1200));
    }

    @Test
    void clampKeepsTheReferencesStaleChecksumWhenThePayloadLengthIsBogus() {
        // The reference rewrites the MSS and then skips the checksum when payload_len overruns: byte-for-byte kept.
        final byte[] p = syn(1460);
        p[4] = 0x01;
        final int before = mssAt(p, 56);
        assertEquals(TcpMssClamp.CLAMPED, clamp(p, 1200));
        assertEquals(1200, mssAt(p, 62));
        assertEquals(before, mssAt(p, 56));
    }

    @Test
    void recalculateFixesTcpAndUdpAndIgnoresTheRest() {
        final byte[] self = TestPackets.addr("fd12::55");
        final byte[] tcp = new byte[20];
        tcp[12] = 0x50;
        tcp[13] = 0x10;
        tcp[16] = (byte) 0x8e;
        tcp[17] = (byte) 0xce;
        final byte[] ack = TestPackets.ipv6(0, 0, 6, 64, self, self, tcp);
        assertFalse(TestPackets.upperChecksumValid(ack, 20, 6));
        assertTrue(TcpMssClamp.recalculateL4Checksum(MemorySegment.ofArray(ack), 0, ack.length));
        assertTrue(TestPackets.upperChecksumValid(ack, 20, 6));

        final byte[] udpBody = {(byte) 0x9c, 0x40, 0x14, (byte) 0xea, 0, 12, (byte) 0x8e, (byte) 0xce, (byte) 0xde,
            (byte) 0xad, (byte) 0xbe, (byte) 0xef};
        final byte[] udp = TestPackets.ipv6(0, 0, 17, 64, self, self, udpBody);
        assertTrue(TcpMssClamp.recalculateL4Checksum(MemorySegment.ofArray(udp), 0, udp.length));
        assertTrue(TestPackets.upperChecksumValid(udp, 12, 17));
        assertNotEquals(0, mssAt(udp, 46));

        final byte[] none = new byte[60];
        none[0] = 0x60;
        none[5] = 20;
        none[6] = 59;
        final byte[] noneBefore = none.clone();
        assertFalse(TcpMssClamp.recalculateL4Checksum(MemorySegment.ofArray(none), 0, none.length));
        assertArrayEquals(noneBefore, none);

        final byte[] truncated = new byte[50];
        truncated[0] = 0x60;
        truncated[5] = 20;
        truncated[6] = 6;
        final byte[] truncatedBefore = truncated.clone();
        assertFalse(TcpMssClamp.recalculateL4Checksum(MemorySegment.ofArray(truncated), 0, truncated.length));
        assertArrayEquals(truncatedBefore, truncated);
    }

    @Test
    void anAllZeroUdpChecksumIsSentAsFfff() {
        // Choose the last payload word so that the checksum would come out as 0x0000.
        final byte[] body = {0x12, 0x34, 0x56, 0x78, 0, 10, 0, 0, 0, 0};
        final byte[] udp = TestPackets.ipv6(0, 0, 17, 64, SRC, DST, body);
        final int rest = TestPackets.sum16(udp, 40, 50, TestPackets.pseudo(udp, 10, 17));
        final int word = 0xFFFF - rest;
        udp[48] = (byte) (word >>> 8);
        udp[49] = (byte) word;
        assertEquals(0xFFFF, TestPackets.sum16(udp, 40, 50, TestPackets.pseudo(udp, 10, 17)));
        assertTrue(TcpMssClamp.recalculateL4Checksum(MemorySegment.ofArray(udp), 0, udp.length));
        assertEquals(0xFFFF, mssAt(udp, 46));
    }
}
