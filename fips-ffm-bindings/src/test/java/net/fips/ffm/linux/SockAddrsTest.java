package net.fips.ffm.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class SockAddrsTest {

    @Test
    void ipv4RoundTripAndBytes() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(SockAddrs.STORAGE_SIZE);
            final InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 2121);
            assertEquals(16, SockAddrs.encode(a, s, false));
            assertEquals(2, s.get(JAVA_BYTE, 0));
            assertEquals(0x08, s.get(JAVA_BYTE, 2));   // 2121 = 0x0849, network order
            assertEquals(0x49, s.get(JAVA_BYTE, 3));
            assertEquals(10, s.get(JAVA_BYTE, 4));
            assertEquals(3, s.get(JAVA_BYTE, 7));
            assertEquals(a, SockAddrs.decode(s, 16));
        }
    }

    @Test
    void ipv4OnIpv6SocketIsMappedAndDecodesBackToIpv4() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(SockAddrs.STORAGE_SIZE);
            final InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("192.0.2.7"), 9);
            assertEquals(28, SockAddrs.encode(a, s, true));
            assertEquals(10, s.get(JAVA_BYTE, 0));
            assertEquals((byte) 0xFF, s.get(JAVA_BYTE, 8 + 10));
            assertEquals((byte) 0xFF, s.get(JAVA_BYTE, 8 + 11));
            assertEquals((byte) 192, s.get(JAVA_BYTE, 8 + 12));
            final InetSocketAddress back = SockAddrs.decode(s, 28);
            assertInstanceOf(Inet4Address.class, back.getAddress());
            assertEquals(a, back);
        }
    }

    @Test
    void ipv6KeepsScopeId() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(SockAddrs.STORAGE_SIZE);
            final byte[] ll = InetAddress.getByName("fe80::1").getAddress();
            final InetSocketAddress a = new InetSocketAddress(Inet6Address.getByAddress(null, ll, 7), 5000);
            SockAddrs.encode(a, s, true);
            final InetSocketAddress back = SockAddrs.decode(s, 28);
            assertEquals(7, ((Inet6Address) back.getAddress()).getScopeId());
            assertEquals(5000, back.getPort());
        }
    }

    @Test
    void encodeErrorsNameTheAddress() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(SockAddrs.STORAGE_SIZE);
            final SockAddrException e1 = assertThrows(SockAddrException.class,
                    () -> SockAddrs.encode(InetSocketAddress.createUnresolved("no.such.host", 1), s, true));
            assertTrue(e1.getMessage().contains("no.such.host:1"), e1.getMessage());
            final SockAddrException e2 = assertThrows(SockAddrException.class,
                    () -> SockAddrs.encode(new InetSocketAddress(InetAddress.getByName("::1"), 1), s, false));
            assertTrue(e2.getMessage().contains("IPv4 socket"), e2.getMessage());
        }
    }

    @Test
    void sameEndpointComparesWhatTheKernelRoutesOn() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment a = arena.allocate(SockAddrs.STORAGE_SIZE);
            final MemorySegment b = arena.allocate(SockAddrs.STORAGE_SIZE);
            final int la = SockAddrs.encode(new InetSocketAddress(InetAddress.getByName("::1"), 1), a, true);
            final int lb = SockAddrs.encode(new InetSocketAddress(InetAddress.getByName("::1"), 1), b, true);
            assertTrue(SockAddrs.sameEndpoint(a, la, b, lb));
            SockAddrs.encode(new InetSocketAddress(InetAddress.getByName("::1"), 2), b, true);
            assertFalse(SockAddrs.sameEndpoint(a, la, b, lb));
        }
    }

    /** Bounded, seeded fuzz: random bytes and mutations of valid encodings only ever give SockAddrException. */
    @Test
    void fuzzDecodeOnlyThrowsTypedErrors() throws Exception {
        final Random rnd = new Random(0x5EED_F1F5L);
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment s = arena.allocate(SockAddrs.STORAGE_SIZE);
            final List<InetSocketAddress> seeds = List.of(
                    new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 2121),
                    new InetSocketAddress(InetAddress.getByName("::1"), 80),
                    new InetSocketAddress(InetAddress.getByName("10.0.0.1"), 1));
            final byte[] buf = new byte[SockAddrs.STORAGE_SIZE];
            int decoded = 0;
            for (int iter = 0; iter < 5000; iter++) {
                if (iter % 2 == 0) {
                    rnd.nextBytes(buf);
                    MemorySegment.copy(buf, 0, s, JAVA_BYTE, 0, buf.length);
                    if (iter % 4 == 0) {   // steer half the random inputs to a known family
                        s.set(JAVA_BYTE, 0, (byte) (rnd.nextBoolean() ? 2 : 10));
                        s.set(JAVA_BYTE, 1, (byte) 0);
                    }
                } else {
                    final InetSocketAddress seed = seeds.get(rnd.nextInt(seeds.size()));
                    SockAddrs.encode(seed, s, seed.getAddress() instanceof Inet6Address || rnd.nextBoolean());
                    for (int m = rnd.nextInt(4); m >= 0; m--) {
                        s.set(JAVA_BYTE, rnd.nextInt(32), (byte) rnd.nextInt());
                    }
                }
                final int len = rnd.nextInt(SockAddrs.STORAGE_SIZE + 8) - 4;
                try {
                    SockAddrs.decode(s, len);
                    decoded++;
                } catch (final SockAddrException expected) {
                    // the typed error is the contract
                }
            }
            assertTrue(decoded > 100, "fuzz should also produce decodable inputs, got " + decoded);
        }
    }
}
