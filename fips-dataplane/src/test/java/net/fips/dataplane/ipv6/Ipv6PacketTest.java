package net.fips.dataplane.ipv6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.NodeAddr;

/** Header accessors, validation, and the fd00::/8 / 15-byte identity-prefix helpers. */
class Ipv6PacketTest {
    @Test
    void accessorsReadTheFixedHeader() {
        final byte[] src = TestPackets.addr("fd01:203:405:607:809:a0b:c0d:e0f");
        final byte[] dst = TestPackets.addr("2001:db8::1");
        final byte[] p = TestPackets.ipv6(0xAB, 0xFEDCB, 17, 3, src, dst, new byte[5]);
        final MemorySegment s = MemorySegment.ofArray(p);
        assertEquals(6, Ipv6Packet.version(s, 0));
        assertEquals(0xAB, Ipv6Packet.trafficClass(s, 0));
        assertEquals(0xFEDCB, Ipv6Packet.flowLabel(s, 0));
        assertEquals(5, Ipv6Packet.payloadLength(s, 0));
        assertEquals(17, Ipv6Packet.nextHeader(s, 0));
        assertEquals(3, Ipv6Packet.hopLimit(s, 0));
        assertEquals(0xfd01_0203_0405_0607L, Ipv6Packet.srcHi(s, 0));
        assertEquals(0x0809_0a0b_0c0d_0e0fL, Ipv6Packet.srcLo(s, 0));
        assertEquals(0x2001_0db8_0000_0000L, Ipv6Packet.dstHi(s, 0));
        assertEquals(1L, Ipv6Packet.dstLo(s, 0));
        assertFalse(Ipv6Packet.isFipsDestination(s, 0));
        assertTrue(Ipv6Packet.isFipsAddress(Ipv6Packet.srcHi(s, 0)));
    }

    @Test
    void validation() {
        final byte[] p = TestPackets.ipv6("fd00::1", "fd00::2", 17, new byte[8]);
        final MemorySegment s = MemorySegment.ofArray(p);
        assertEquals(Ipv6Packet.OK, Ipv6Packet.validate(s, 0, 48));
        assertEquals(Ipv6Packet.OK, Ipv6Packet.checkHeader(s, 0, 47), "the TUN-path check ignores payload_len");
        assertEquals(Ipv6Packet.ERR_LENGTH, Ipv6Packet.validate(s, 0, 47));
        assertEquals(Ipv6Packet.ERR_TRUNCATED, Ipv6Packet.validate(s, 0, 39));
        assertEquals(Ipv6Packet.ERR_BOUNDS, Ipv6Packet.validate(s, 1, 48));
        assertEquals(Ipv6Packet.ERR_BOUNDS, Ipv6Packet.validate(s, -1, 8));
        p[0] = 0x45;
        assertEquals(Ipv6Packet.ERR_VERSION, Ipv6Packet.validate(s, 0, 48));
    }

    @Test
    void ceMarkingOnlyTouchesEcnCapablePackets() {
        final int[][] cases = {{0x00, 0x00}, {0x01, 0x03}, {0x02, 0x03}, {0x03, 0x03}, {0xA8, 0xA8}, {0xAA, 0xAB},
            {0xFD, 0xFF}};
        for (final int[] c : cases) {
            final byte[] p = TestPackets.ipv6(c[0], 0xFEDCB, 17, 64, new byte[16], new byte[16], new byte[0]);
            final byte[] before = p.clone();
            final boolean marked = Ipv6Packet.markEcnCe(MemorySegment.ofArray(p), 0);
            assertEquals((c[0] & 3) != 0, marked);
            assertEquals(c[1], Ipv6Packet.trafficClass(MemorySegment.ofArray(p), 0));
            assertEquals(0xFEDCB, Ipv6Packet.flowLabel(MemorySegment.ofArray(p), 0));
            assertEquals(6, Ipv6Packet.version(MemorySegment.ofArray(p), 0));
            for (int i = 2; i < p.length; i++) {
                assertEquals(before[i], p[i]);
            }
        }
    }

    @Test
    void fipsDestinationAndIdentityKey() {
        final NodeAddr node = NodeAddr.ofHex("e606a3d8531734db915fd56934470f7f");
        final long hi = Ipv6Packet.fipsAddressHi(node.hi());
        final long lo = Ipv6Packet.fipsAddressLo(node.hi(), node.lo());
        final byte[] p = TestPackets.ipv6(0, 0, 17, 64, TestPackets.addr("fd00::1"),
                HexFormat.of().parseHex("fde606a3d8531734db915fd56934470f"), new byte[0]);
        final MemorySegment s = MemorySegment.ofArray(p);
        assertTrue(Ipv6Packet.isFipsDestination(s, 0));
        assertEquals(hi, Ipv6Packet.dstHi(s, 0));
        assertEquals(lo, Ipv6Packet.dstLo(s, 0));
        // the key is the node_addr with its 16th byte cleared (what IdentityCache indexes by)
        final NodeAddr key = NodeAddr.of(Ipv6Packet.nodePrefixHi(hi, lo), Ipv6Packet.nodePrefixLo(lo));
        assertEquals(NodeAddr.ofHex("e606a3d8531734db915fd56934470f00"), key);
        assertFalse(Ipv6Packet.isFipsAddress(0xfc00_0000_0000_0000L));
        assertFalse(Ipv6Packet.isFipsAddress(0xfe80_0000_0000_0000L));
        assertTrue(Ipv6Packet.isMulticast(0xff02_0000_0000_0000L));
        assertTrue(Ipv6Packet.isUnspecified(0, 0));
        assertFalse(Ipv6Packet.isUnspecified(0, 1));
    }
}
