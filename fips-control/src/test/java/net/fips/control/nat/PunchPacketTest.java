package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** Punch packets (discovery-gateway.md §2.5) against the spec's vectors. */
class PunchPacketTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void sessionHashesOfTheSpec() {
        assertArrayEquals(HEX.parseHex("abe633f3a47a2758174eabe9160daf36"), PunchPacket.sessionHash("sess-1"));
        assertArrayEquals(HEX.parseHex("6c7fc59a4e2fe346d0b658bad83ac53f"),
                PunchPacket.sessionHash("1700000000000-00000000000000ff"));
    }

    @Test
    void probeAndAckBytesAndRoundTrip() {
        final PunchPacket probe = new PunchPacket(false, 7, PunchPacket.sessionHash("sess-1"));
        assertArrayEquals(HEX.parseHex("4e50544300000007abe633f3a47a2758174eabe9160daf36"), probe.encode());
        assertArrayEquals(HEX.parseHex("4e50544100000007abe633f3a47a2758174eabe9160daf36"), probe.toAck().encode());
        final byte[] longer = HEX.parseHex("4e50544100000007abe633f3a47a2758174eabe9160daf36ffff");
        assertEquals(probe.toAck(), PunchPacket.parse(longer, longer.length), "extra bytes are ignored");
        final PunchPacket wrapped = new PunchPacket(false, 0xffff_ffffL, PunchPacket.sessionHash("x"));
        assertEquals(wrapped, PunchPacket.parse(wrapped.encode(), PunchPacket.BYTES));
    }

    @Test
    void otherBytesAreNotPunchPackets() {
        final byte[] probe = new PunchPacket(false, 1, PunchPacket.sessionHash("sess-1")).encode();
        assertNull(PunchPacket.parse(probe, 23));
        probe[3] = 0x42;
        assertNull(PunchPacket.parse(probe, probe.length));
        assertTrue(PunchPacket.isPunchMagic(0x4E505443));
        assertTrue(PunchPacket.isPunchMagic(0x4E505441));
        assertFalse(PunchPacket.isPunchMagic(0x4E505442));
    }
}
