package net.fips.dataplane.ipv6;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** ICMPv6 error builders and the error gate, after icmp.rs and its tests. */
class Icmpv6ErrorsTest {
    private static final byte[] OUR = TestPackets.addr("fd00::ffff");

    private static MemorySegment seg(final byte[] b) {
        return MemorySegment.ofArray(b);
    }

    private static boolean gate(final byte[] p) {
        return Icmpv6Errors.shouldSendError(seg(p), 0, p.length);
    }

    private static int u16(final byte[] b, final int i) {
        return ((b[i] & 0xFF) << 8) | (b[i + 1] & 0xFF);
    }

    private static long u32(final byte[] b, final int i) {
        return ((long) u16(b, i) << 16) | u16(b, i + 2);
    }

    /** Builds into a fresh guard-filled buffer at offset 7 and returns exactly the packet bytes. */
    private static byte[] build(final Builder b, final byte[] orig) {
        final byte[] out = TestPackets.filled(7 + 1280 + 7, 0xEE);
        final int n = b.build(seg(orig), seg(out));
        if (n < 0) {
            return null;
        }
        assertEquals((byte) 0xEE, out[6]);
        assertEquals((byte) 0xEE, out[7 + n]);
        return Arrays.copyOfRange(out, 7, 7 + n);
    }

    private interface Builder {
        int build(MemorySegment orig, MemorySegment dst);
    }

    private static byte[] unreachable(final byte[] orig) {
        return build((o, d) -> Icmpv6Errors.destinationUnreachable(o, 0, orig.length, Icmpv6Errors.CODE_NO_ROUTE,
                TestPackets.hi(OUR), TestPackets.lo(OUR), d, 7), orig);
    }

    private static byte[] ptb(final byte[] orig, final long mtu, final byte[] from) {
        return build((o, d) -> Icmpv6Errors.packetTooBig(o, 0, orig.length, mtu, TestPackets.hi(from),
                TestPackets.lo(from), d, 7), orig);
    }

    /** Checks the IPv6 + ICMPv6 framing a kernel checks: version, lengths, next header, checksum. */
    private static void assertWellFormed(final byte[] r, final byte[] from, final byte[] to) {
        assertEquals(6, (r[0] & 0xF0) >>> 4);
        assertEquals(0, r[0] & 0x0F);
        assertEquals(0, r[1]);
        assertEquals(0, r[2]);
        assertEquals(0, r[3]);
        assertEquals(r.length - 40, u16(r, 4));
        assertEquals(58, r[6]);
        assertEquals(64, r[7]);
        assertArrayEquals(from, Arrays.copyOfRange(r, 8, 24));
        assertArrayEquals(to, Arrays.copyOfRange(r, 24, 40));
        assertTrue(TestPackets.upperChecksumValid(r, r.length - 40, 58), "ICMPv6 checksum verifies");
        assertTrue(r.length <= 1280);
    }

    @Test
    void gateFollowsTheReference() {
        assertTrue(gate(TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[8])));
        assertFalse(gate(TestPackets.ipv6("::", "fd00::2", 17, new byte[8])));
        assertFalse(gate(TestPackets.ipv6("ff02::1", "fd00::2", 17, new byte[8])));
        assertFalse(gate(TestPackets.ipv6("fe80::1", "ff02::2", 17, new byte[8])));
        assertFalse(gate(TestPackets.ipv6("fd00::1", "fd00::2", 58, new byte[] {1, 0, 0, 0, 0, 0, 0, 0})));
        assertTrue(gate(TestPackets.ipv6("fd00::1", "fd00::2", 58, new byte[] {(byte) 128, 0, 0, 0, 0, 0, 0, 0})));
        assertTrue(gate(TestPackets.ipv6("fd00::1", "fd00::2", 58, new byte[0])), "no ICMP type byte to inspect");
        assertFalse(gate(new byte[20]));
        final byte[] v4 = TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[8]);
        v4[0] = 0x45;
        assertFalse(gate(v4));
    }

    @Test
    void destinationUnreachableGolden() {
        final byte[] orig = TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[8]);
        final byte[] r = unreachable(orig);
        assertEquals(96, r.length);
        assertWellFormed(r, OUR, TestPackets.addr("fd00::1"));
        assertEquals(1, r[40]);
        assertEquals(0, r[41]);
        assertEquals(0x993d, u16(r, 42), "checksum computed independently (RFC 4443 pseudo-header)");
        assertEquals(0, u32(r, 44), "unused word");
        assertArrayEquals(orig, Arrays.copyOfRange(r, 48, 96));
        final byte[] head = HexFormat.of().parseHex("6000000000383a40fd00000000000000000000000000ffff"
                + "fd00000000000000000000000000000101" + "00993d00000000");
        assertArrayEquals(head, Arrays.copyOfRange(r, 0, head.length));
    }

    @Test
    void destinationUnreachableRefusesOnlyShortInputAndTruncates() {
        assertEquals(Icmpv6Errors.SUPPRESSED, Icmpv6Errors.destinationUnreachable(seg(new byte[20]), 0, 20, 0, 0, 0,
                seg(new byte[2000]), 0));
        final byte[] big = TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[2000]);
        final byte[] r = unreachable(big);
        assertEquals(1280, r.length);
        assertWellFormed(r, OUR, TestPackets.addr("fd00::1"));
        assertArrayEquals(Arrays.copyOf(big, 1232), Arrays.copyOfRange(r, 48, 1280));
        // code is carried as given
        final byte[] c4 = build((o, d) -> Icmpv6Errors.destinationUnreachable(o, 0, 48, 4, 1, 2, d, 7),
                TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[8]));
        assertEquals(4, c4[41]);
    }

    @Test
    void packetTooBigAsTheReferenceTests() {
        final byte[] orig = TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[1200]);
        final byte[] r = ptb(orig, 1070, OUR);
        assertEquals(1280, r.length);
        assertWellFormed(r, OUR, TestPackets.addr("fd00::1"));
        assertEquals(2, r[40]);
        assertEquals(0, r[41]);
        assertEquals(1070, u32(r, 44));
        assertArrayEquals(Arrays.copyOf(orig, 1232), Arrays.copyOfRange(r, 48, 1280));

        assertEquals(Icmpv6Errors.SUPPRESSED, Icmpv6Errors.packetTooBig(seg(new byte[20]), 0, 20, 1280, 0, 0,
                seg(new byte[2000]), 0));
        assertEquals(null, ptb(TestPackets.ipv6("ff02::1", "fd00::2", 17, new byte[1200]), 1280, OUR));
        assertEquals(null, ptb(TestPackets.ipv6("::", "fd00::2", 17, new byte[1200]), 1280, OUR));
        assertEquals(null, ptb(TestPackets.ipv6("fd00::1", "fd00::2", 58, new byte[] {1, 0, 0, 0, 0, 0, 0, 0}),
                1280, OUR));
        final byte[] echo = ptb(TestPackets.ipv6("fd00::1", "fd00::2", 58, new byte[] {(byte) 128, 0, 0, 0, 0, 0,
            0, 0}), 1280, OUR);
        assertEquals(40 + 8 + 48, echo.length);
        // unlike the gate, the PTB builder does not look at a multicast destination (as the reference)
        assertEquals(96, ptb(TestPackets.ipv6("fd00::1", "ff02::2", 17, new byte[8]), 1280, OUR).length);
        final byte[] v4 = TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[8]);
        v4[0] = 0x45;
        assertEquals(null, ptb(v4, 1280, OUR));
        final byte[] big = ptb(TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[2000]), 1070,
                TestPackets.addr("fd00::2"));
        assertEquals(1280, big.length);
        assertEquals(0x87a5, u16(big, 42));
    }

    @Test
    void packetTooBigForTunComesFromTheRemotePeer() {
        final byte[] local = TestPackets.addr("fd41::1");
        final byte[] remote = TestPackets.addr("fddf::2");
        final byte[] orig = TestPackets.ipv6("fd41::1", "fddf::2", 6, new byte[1200]);
        final byte[] r = build((o, d) -> Icmpv6Errors.packetTooBigForTun(o, 0, orig.length, 1203, d, 7), orig);
        assertWellFormed(r, remote, local);
        assertEquals(1203, u32(r, 44));
        assertEquals(0x9300, u16(r, 42));
        assertEquals(Icmpv6Errors.SUPPRESSED, Icmpv6Errors.packetTooBigForTun(seg(new byte[39]), 0, 39, 1280,
                seg(new byte[2000]), 0));
    }

    @Test
    void buildsInFrontOfTheOriginalInTheSameSegment() {
        final byte[] orig = TestPackets.ipv6("fd41::1", "fddf::2", 6, TestPackets.filled(1300, 0x42));
        final byte[] want = build((o, d) -> Icmpv6Errors.packetTooBigForTun(o, 0, orig.length, 1203, d, 7), orig);
        final byte[] slot = new byte[48 + orig.length];
        System.arraycopy(orig, 0, slot, 48, orig.length);
        final int n = Icmpv6Errors.packetTooBigForTun(seg(slot), 48, orig.length, 1203, seg(slot), 0);
        assertEquals(1280, n);
        assertArrayEquals(want, Arrays.copyOf(slot, n));
        // overlapping the other way (error written after the start of the original)
        final byte[] slot2 = orig.clone();
        assertEquals(1280, Icmpv6Errors.packetTooBigForTun(seg(slot2), 0, orig.length, 1203, seg(slot2), 20));
        assertArrayEquals(want, Arrays.copyOfRange(slot2, 20, 1300));
    }

    @Test
    void noRoomIsReported() {
        final byte[] orig = TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[100]);
        assertEquals(Icmpv6Errors.ERR_NO_ROOM, Icmpv6Errors.destinationUnreachable(seg(orig), 0, orig.length, 0, 0,
                0, seg(new byte[187]), 0));
        assertEquals(188, Icmpv6Errors.destinationUnreachable(seg(orig), 0, orig.length, 0, 0, 0,
                seg(new byte[188]), 0));
        assertEquals(Icmpv6Errors.ERR_NO_ROOM, Icmpv6Errors.packetTooBig(seg(orig), 0, orig.length, 1, 0, 0,
                seg(new byte[188]), 1));
        assertEquals(188, Icmpv6Errors.errorLength(140));
        assertEquals(1280, Icmpv6Errors.errorLength(100_000));
        assertEquals(MemorySegment.ofArray(orig).get(ValueLayout.JAVA_BYTE, 0), (byte) 0x60);
    }
}
