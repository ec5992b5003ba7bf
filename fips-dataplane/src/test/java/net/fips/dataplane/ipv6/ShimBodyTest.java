package net.fips.dataplane.ipv6;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.PacketView;
import net.fips.dataplane.wire.Ipv6Shim;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireError;

/** The port-256 body and the shim's allocation-free functions, against values derived from ipv6_shim.rs tests. */
class ShimBodyTest {
    private static final byte[] SRC = HexFormat.of().parseHex("fd0102030405060708090a0b0c0d0e0f");
    private static final byte[] DST = HexFormat.of().parseHex("fd1112131415161718191a1b1c1d1e1f");
    private static final int HEADROOM = 64;

    /** Places {@code packet} at offset HEADROOM of a larger segment (headroom + tailroom, guard-filled). */
    private static MemorySegment slot(final byte[] packet) {
        final byte[] b = TestPackets.filled(HEADROOM + packet.length + 64, 0xEE);
        System.arraycopy(packet, 0, b, HEADROOM, packet.length);
        return MemorySegment.ofArray(b);
    }

    private static byte[] bytes(final MemorySegment s, final long off, final long len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Encodes in place, checks the body bytes, decodes in place, returns the rebuilt packet. */
    private static byte[] roundTrip(final byte[] packet, final byte[] ctxSrc, final byte[] ctxDst) {
        final MemorySegment s = slot(packet);
        final long body = ShimBody.encodeInPlace(s, HEADROOM, packet.length);
        assertEquals(HEADROOM + 29, body);
        final byte[] b = bytes(s, body, packet.length - 29);
        assertEquals(expectedBody(packet).length, b.length);
        assertArrayEquals(expectedBody(packet), b);
        final long pkt = ShimBody.decodeInPlace(s, body, b.length, TestPackets.hi(ctxSrc), TestPackets.lo(ctxSrc),
                TestPackets.hi(ctxDst), TestPackets.lo(ctxDst));
        assertEquals(HEADROOM, pkt);
        // Nothing outside the packet region was touched.
        for (int i = 0; i < HEADROOM; i++) {
            assertEquals((byte) 0xEE, s.get(ValueLayout.JAVA_BYTE, i));
        }
        for (long i = HEADROOM + packet.length; i < s.byteSize(); i++) {
            assertEquals((byte) 0xEE, s.get(ValueLayout.JAVA_BYTE, i));
        }
        return bytes(s, pkt, packet.length);
    }

    /** The body spelled out byte by byte from the spec (§5.6), independent of the production code. */
    private static byte[] expectedBody(final byte[] p) {
        final byte[] b = new byte[11 + p.length - 40];
        b[0] = 0x00;
        b[1] = 0x01; // src_port 256 LE
        b[2] = 0x00;
        b[3] = 0x01; // dst_port 256 LE
        b[4] = 0x00; // format
        b[5] = p[0];
        b[6] = p[1];
        b[7] = p[2];
        b[8] = p[3];
        b[9] = p[6];
        b[10] = p[7];
        System.arraycopy(p, 40, b, 11, p.length - 40);
        return b;
    }

    @Test
    void roundTripsAsTheReferenceTests() {
        final byte[][] packets = {
            TestPackets.ipv6(0, 0, 17, 64, SRC, DST, TestPackets.filled(100, 0xAA)),
            TestPackets.ipv6(0, 0, 59, 1, SRC, DST, new byte[0]),
            TestPackets.ipv6(0, 0, 6, 128, SRC, DST, TestPackets.filled(1400, 0x55)),
            TestPackets.ipv6(0xAB, 0, 17, 64, SRC, DST, new byte[] {1, 2, 3}),
            TestPackets.ipv6(0, 0xFEDCB, 17, 64, SRC, DST, new byte[] {1}),
            TestPackets.ipv6(0xFF, 0xFFFFF, 17, 64, SRC, DST, new byte[] {1}),
            TestPackets.ipv6(0, 0, 6, 64, SRC, DST, new byte[20]),
            TestPackets.ipv6(0, 0, 58, 255, SRC, DST, new byte[8]),
        };
        for (final byte[] p : packets) {
            assertArrayEquals(p, roundTrip(p, SRC, DST));
        }
        for (final int hop : new int[] {0, 1, 64, 128, 255}) {
            final byte[] p = TestPackets.ipv6(0, 0, 17, hop, SRC, DST, new byte[] {1});
            assertEquals(hop, roundTrip(p, SRC, DST)[7] & 0xFF);
        }
    }

    @Test
    void goldenBytesForTrafficClassAndFlowLabel() {
        // TC 0xAB, flow 0xFEDCB: bytes 0-3 are 6A BF ED CB and travel verbatim.
        final byte[] p = TestPackets.ipv6(0xAB, 0xFEDCB, 17, 64, SRC, DST, new byte[] {9, 8});
        final MemorySegment s = slot(p);
        final long body = ShimBody.encodeInPlace(s, HEADROOM, p.length);
        assertArrayEquals(HexFormat.of().parseHex("00010001006abfedcb11400908"), bytes(s, body, 13));
        final byte[] back = roundTrip(p, SRC, DST);
        assertEquals(0xAB, ((back[0] & 0x0F) << 4) | ((back[1] & 0xF0) >>> 4));
        assertEquals(0xAB, Ipv6Packet.trafficClass(MemorySegment.ofArray(back), 0));
        assertEquals(0xFEDCB, Ipv6Packet.flowLabel(MemorySegment.ofArray(back), 0));
    }

    @Test
    void payloadLengthAndAddressesComeFromContext() {
        final byte[] origSrc = TestPackets.filled(16, 0xAA);
        origSrc[0] = (byte) 0xfd;
        final byte[] origDst = TestPackets.filled(16, 0xBB);
        origDst[0] = (byte) 0xfd;
        final byte[] p = TestPackets.ipv6(0, 0, 17, 64, origSrc, origDst, TestPackets.filled(256, 0xBB));
        final byte[] q = roundTrip(p, SRC, DST);
        assertEquals(256, ((q[4] & 0xFF) << 8) | (q[5] & 0xFF));
        assertArrayEquals(SRC, Arrays.copyOfRange(q, 8, 24));
        assertArrayEquals(DST, Arrays.copyOfRange(q, 24, 40));
        assertArrayEquals(Arrays.copyOfRange(p, 0, 8), Arrays.copyOfRange(q, 0, 8));
        assertArrayEquals(Arrays.copyOfRange(p, 40, p.length), Arrays.copyOfRange(q, 40, q.length));
    }

    @Test
    void shimSavesThirtyThreeBytesAndBodyTwentyNine() {
        final byte[] p = TestPackets.ipv6(0, 0, 17, 64, SRC, DST, new byte[100]);
        final MemorySegment out = MemorySegment.ofArray(new byte[200]);
        assertEquals(107, Ipv6Shim.compressTo(MemorySegment.ofArray(p), 0, 140, out, 0));
        assertEquals(111, ShimBody.encodeTo(MemorySegment.ofArray(p), 0, 140, out, 0));
        assertEquals(7, Ipv6Shim.compressTo(MemorySegment.ofArray(TestPackets.ipv6(0, 0, 59, 1, SRC, DST,
                new byte[0])), 0, 40, out, 0));
    }

    @Test
    void copyingVariantsMatchInPlaceAndToleranceOverlap() {
        final byte[] p = TestPackets.ipv6(0x12, 0x34567, 6, 9, SRC, DST, TestPackets.filled(300, 0x5A));
        final byte[] want = expectedBody(p);
        final MemorySegment out = MemorySegment.ofArray(new byte[400]);
        assertEquals(want.length, ShimBody.encodeTo(MemorySegment.ofArray(p), 0, p.length, out, 5));
        assertArrayEquals(want, bytes(out, 5, want.length));
        // decode back into the same buffer, overlapping (body at 5, packet written at 0)
        assertEquals(p.length, ShimBody.decodeTo(out, 5, want.length, out, 0, TestPackets.hi(SRC),
                TestPackets.lo(SRC), TestPackets.hi(DST), TestPackets.lo(DST)));
        assertArrayEquals(p, bytes(out, 0, p.length));
        // and overlapping the other way: packet at 0 compressed to a body starting at 3
        assertEquals(want.length, ShimBody.encodeTo(out, 0, p.length, out, 3));
        assertArrayEquals(want, bytes(out, 3, want.length));
        // packet rebuilt towards the end, overlapping its own body
        assertEquals(p.length, ShimBody.decodeTo(out, 3, want.length, out, 50, TestPackets.hi(SRC),
                TestPackets.lo(SRC), TestPackets.hi(DST), TestPackets.lo(DST)));
        assertArrayEquals(p, bytes(out, 50, p.length));
    }

    @Test
    void refusals() {
        final byte[] v4 = TestPackets.ipv6(0, 0, 17, 64, SRC, DST, new byte[] {1});
        v4[0] = 0x40;
        assertEquals(WireError.BAD_VERSION, ShimBody.errorOf(ShimBody.encodeInPlace(MemorySegment.ofArray(v4), 0,
                v4.length)));
        assertEquals(WireError.TRUNCATED, ShimBody.errorOf(ShimBody.encodeInPlace(
                MemorySegment.ofArray(TestPackets.filled(39, 0x60)), 0, 39)));
        assertEquals(WireError.TRUNCATED, ShimBody.errorOf(ShimBody.encodeInPlace(MemorySegment.ofArray(new byte[0]),
                0, 0)));
        assertEquals(WireError.BAD_LENGTH, ShimBody.errorOf(ShimBody.encodeInPlace(MemorySegment.ofArray(
                new byte[40]), 1, 40)));
        final MemorySegment s = MemorySegment.ofArray(new byte[100]);
        // unknown shim format 0x01
        body(s, 0x0100, 0x01);
        assertEquals(WireError.BAD_TYPE, ShimBody.errorOf(ShimBody.decodeInPlace(s, 50, 11, 0, 0, 0, 0)));
        body(s, 0x0100, 0x00);
        assertEquals(50 - 29, ShimBody.decodeInPlace(s, 50, 11, 0, 0, 0, 0));
        // a shim shorter than 7 bytes
        body(s, 0x0100, 0x00);
        assertEquals(WireError.TRUNCATED, ShimBody.errorOf(ShimBody.decodeInPlace(s, 50, 10, 0, 0, 0, 0)));
        assertEquals(WireError.TRUNCATED, ShimBody.errorOf(ShimBody.decodeInPlace(s, 50, 3, 0, 0, 0, 0)));
        // no room behind for the rebuilt packet, and no room in front to grow into
        body(s, 0x0100, 0x00);
        assertEquals(WireError.BAD_LENGTH, ShimBody.errorOf(ShimBody.decodeTo(s, 50, 11, s, 61, 0, 0, 0, 0)));
        final MemorySegment tight = MemorySegment.ofArray(new byte[40]);
        body(tight, 0x0100, 0x00, 28);
        assertEquals(WireError.BAD_LENGTH, ShimBody.errorOf(ShimBody.decodeInPlace(tight, 28, 11, 0, 0, 0, 0)));
        // another port: dropped with ERR_PORT (the source port is ignored)
        body(s, 0x0200, 0x00);
        assertEquals(ShimBody.ERR_PORT, ShimBody.decodeInPlace(s, 50, 11, 0, 0, 0, 0));
        assertEquals(ShimBody.ERR_PORT, ShimBody.decodeTo(s, 50, 11, s, 0, 0, 0, 0, 0));
        body(s, 0x0100, 0x00);
        s.set(ValueLayout.JAVA_BYTE, 50, (byte) 0x07);
        assertEquals(50 - 29, ShimBody.decodeInPlace(s, 50, 11, 0, 0, 0, 0));
        // too small a destination
        assertEquals(WireError.BAD_LENGTH, ShimBody.errorOf(ShimBody.encodeTo(MemorySegment.ofArray(
                TestPackets.ipv6(0, 0, 17, 64, SRC, DST, new byte[10])), 0, 50, MemorySegment.ofArray(
                        new byte[20]), 0)));
    }

    /** Writes a body header at 50 (or {@code at}): src_port 256, dst_port as given (written LE), then a format byte. */
    private static void body(final MemorySegment s, final int dstPort, final int format) {
        body(s, dstPort, format, 50);
    }

    private static void body(final MemorySegment s, final int dstPort, final int format, final int at) {
        s.set(ValueLayout.JAVA_BYTE, at, (byte) 0x00);
        s.set(ValueLayout.JAVA_BYTE, at + 1, (byte) 0x01);
        s.set(ValueLayout.JAVA_BYTE, at + 2, (byte) dstPort);
        s.set(ValueLayout.JAVA_BYTE, at + 3, (byte) (dstPort >>> 8));
        s.set(ValueLayout.JAVA_BYTE, at + 4, (byte) format);
    }

    @Test
    void inASlotTheFreedBytesBecomeHeadroomAndComeBack() {
        try (PacketPool pool = new PacketPool(4, 1500)) {
            final PacketView v = pool.newView();
            v.wrap(pool.acquire());
            final byte[] p = TestPackets.ipv6(0x2E, 0xABCDE, 6, 63, SRC, DST, TestPackets.filled(1000, 0x33));
            v.setLength(p.length);
            v.putBytes(0, p);
            final int headroom = v.headroom();
            final MemorySegment seg = v.slotSegment();
            final long body = ShimBody.encodeInPlace(seg, v.dataOffset(), v.length());
            v.trimFront((int) (body - v.dataOffset()));
            assertEquals(p.length - 29, v.length());
            assertEquals(headroom + 29, v.headroom());
            assertEquals(256, v.getU16Le(0));
            assertEquals(256, v.getU16Le(2));
            // receive side: the body is at the front of the packet after stripping outer headers
            final long pkt = ShimBody.decodeInPlace(seg, v.dataOffset(), v.length(), TestPackets.hi(SRC),
                    TestPackets.lo(SRC), TestPackets.hi(DST), TestPackets.lo(DST));
            v.prepend((int) (v.dataOffset() - pkt));
            final byte[] back = new byte[v.length()];
            v.getBytes(0, back);
            assertArrayEquals(p, back);
        }
    }

    @Test
    void nodeAddressHelpersAgreeWithTheOwnedCodec() {
        final NodeAddr node = NodeAddr.ofHex("e606a3d8531734db915fd56934470f7f");
        final byte[] fips = Ipv6Shim.fipsAddress(node);
        assertArrayEquals(HexFormat.of().parseHex("fde606a3d8531734db915fd56934470f"), fips);
        assertEquals(TestPackets.hi(fips), Ipv6Packet.fipsAddressHi(node.hi()));
        assertEquals(TestPackets.lo(fips), Ipv6Packet.fipsAddressLo(node.hi(), node.lo()));
        assertTrue(Ipv6Packet.isFipsAddress(Ipv6Packet.fipsAddressHi(node.hi())));
    }
}
