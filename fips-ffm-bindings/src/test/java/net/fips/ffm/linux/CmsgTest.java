package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;

import org.junit.jupiter.api.Test;

class CmsgTest {

    @Test
    void walkFindsEachHeaderAndStopsAtTheEnd() {
        try (Arena arena = Arena.ofConfined()) {
            final long cap = Cmsg.space(4) + Cmsg.space(2);
            final MemorySegment c = arena.allocate(cap, 8);
            final long d0 = Cmsg.put(c, 0, Linux.SOL_SOCKET, Linux.SO_RXQ_OVFL, 4);
            c.set(JAVA_INT_UNALIGNED, d0, 197);
            final long second = Cmsg.space(4);
            final long d1 = Cmsg.put(c, second, Linux.SOL_UDP, Linux.UDP_GRO, 4);
            c.set(JAVA_INT_UNALIGNED, d1, 1280);
            final long h0 = Cmsg.firstHdr(cap);
            assertEquals(0, h0);
            assertEquals(Linux.SO_RXQ_OVFL, Cmsg.type(c, h0));
            final long h1 = Cmsg.nxtHdr(c, cap, h0);
            assertEquals(second, h1);
            assertEquals(Linux.SOL_UDP, Cmsg.level(c, h1));
            assertEquals(1280, c.get(JAVA_INT_UNALIGNED, Cmsg.data(h1)));
            assertEquals(Cmsg.NONE, Cmsg.nxtHdr(c, cap, h1));
            assertEquals(h1, Cmsg.find(c, cap, Linux.SOL_UDP, Linux.UDP_GRO));
            assertEquals(Cmsg.NONE, Cmsg.find(c, cap, Linux.SOL_UDP, Linux.UDP_SEGMENT));
            assertEquals(Cmsg.NONE, Cmsg.firstHdr(8));
        }
    }

    /** Seeded fuzz: garbage control buffers never make the walk loop forever or read out of bounds. */
    @Test
    void fuzzWalkTerminatesInBounds() {
        final Random rnd = new Random(42);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment c = arena.allocate(256, 8);
            for (int iter = 0; iter < 5000; iter++) {
                for (int i = 0; i < 256; i += 8) {
                    c.set(JAVA_LONG_UNALIGNED, i, rnd.nextInt(4) == 0 ? rnd.nextLong() : rnd.nextInt(64));
                }
                final long len = rnd.nextInt(257);
                int steps = 0;
                for (long h = Cmsg.firstHdr(len); h != Cmsg.NONE; h = Cmsg.nxtHdr(c, len, h)) {
                    assertTrue(h + Cmsg.HDR_SIZE <= len);
                    assertTrue(++steps <= 16);
                }
            }
        }
    }
}
