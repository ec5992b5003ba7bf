package net.fips.ffm.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

/** {@code struct sockaddr_ll} bytes as transports.md §4.1 and §9.4 give them (x86_64 glibc), and the constants. */
class PacketSocketsTest {
    @Test
    void constantsAreTheKernels() {
        assertEquals(17, PacketSockets.AF_PACKET);
        assertEquals(2, PacketSockets.SOCK_DGRAM);
        assertEquals(263, PacketSockets.SOL_PACKET);
        assertEquals(20, PacketSockets.SOCKADDR_LL_SIZE);
        assertEquals(0, PacketSockets.PACKET_HOST);
        assertEquals(1, PacketSockets.PACKET_BROADCAST);
        assertEquals(3, PacketSockets.PACKET_OTHERHOST);
        assertEquals(4, PacketSockets.PACKET_OUTGOING);
        assertEquals(6, PacketSockets.ETH_ALEN);
        assertEquals(6, PacketSockets.ENXIO);
        assertEquals(100, PacketSockets.ENETDOWN);
    }

    @Test
    void sendAddressLayout() {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment s = a.allocate(32);
            s.fill((byte) 0x5a);
            // A non-palindromic EtherType shows the byte order (0x2121 would hide it).
            assertEquals(20, PacketSockets.encode(s, 0x88b5, 0x01020304, 0x0200_5e00_000aL));
            assertEquals("1100" + "88b5" + "04030201" + "0000" + "00" + "06" + "02005e00000a0000" + "5a5a",
                    HexFormat.of().formatHex(s.asSlice(0, 22).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals(0x0200_5e00_000aL, PacketSockets.sourceMac(s));
            assertEquals(0x88b5, PacketSockets.protocol(s));
            assertEquals(0x01020304, PacketSockets.ifindex(s));
            PacketSockets.destination(s, 0xffff_ffff_ffffL);
            assertEquals(0xffff_ffff_ffffL, PacketSockets.sourceMac(s));
        }
    }

    @Test
    void bindAddressHasNoMac() {
        try (Arena a = Arena.ofConfined()) {
            final MemorySegment s = a.allocate(20);
            PacketSockets.encode(s, 0x2121, 7, -1);
            assertEquals("1100" + "2121" + "07000000" + "0000" + "00" + "00" + "0000000000000000",
                    HexFormat.of().formatHex(s.toArray(ValueLayout.JAVA_BYTE)));
            s.set(ValueLayout.JAVA_BYTE, 10, (byte) 3);
            assertEquals(3, PacketSockets.packetType(s));
        }
    }
}
