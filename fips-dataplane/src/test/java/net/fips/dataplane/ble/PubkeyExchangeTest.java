package net.fips.dataplane.ble;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.wire.NodeAddr;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.UnixSeqPacket;

/**
 * The pre-handshake key exchange of transports.md §5.4 over a real AF_UNIX SOCK_SEQPACKET pair (the kernel stand-in
 * for an L2CAP CoC channel): both sides byte-exact, every malformed hello refused with its reason, a silent peer
 * timed out, and fuzzed SDUs never crash the exchange or get accepted unless they are a valid hello.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PubkeyExchangeTest {
    private int[] pair;

    @BeforeEach
    void open() throws Exception {
        pair = UnixSeqPacket.pair();
    }

    @AfterEach
    void close() {
        Syscalls.closeQuietly(pair[0]);
        Syscalls.closeQuietly(pair[1]);
    }

    private static PubkeyExchange.Outcome run(final int fd, final byte[] key, final long timeoutMs) {
        return PubkeyExchange.run(fd, key, TestKeys.INSTANCE, timeoutMs, System::nanoTime);
    }

    private static void sendRaw(final int fd, final byte[] sdu) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(Math.max(1, sdu.length));
            MemorySegment.copy(sdu, 0, m, ValueLayout.JAVA_BYTE, 0, sdu.length);
            assertEquals(sdu.length, Syscalls.send(CallState.forCurrentThread(), fd, m, sdu.length, 0));
        }
    }

    private static byte[] recvRaw(final int fd) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(256);
            final int n = Syscalls.recv(CallState.forCurrentThread(), fd, m, 256, 0);
            assertTrue(n >= 0, "recv " + n);
            return m.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void bothSidesLearnEachOthersKey() throws Exception {
        final CompletableFuture<PubkeyExchange.Outcome> other =
                CompletableFuture.supplyAsync(() -> run(pair[1], TestKeys.TWO_G_X, 5_000));
        final PubkeyExchange.Outcome mine = run(pair[0], TestKeys.G_X, 5_000);
        final PubkeyExchange.Outcome theirs = other.get(10, TimeUnit.SECONDS);
        assertTrue(mine.ok(), String.valueOf(mine));
        assertTrue(theirs.ok(), String.valueOf(theirs));
        assertArrayEquals(TestKeys.TWO_G_X, mine.peerKey());
        assertArrayEquals(TestKeys.G_X, theirs.peerKey());
    }

    @Test
    void theHelloIsByteExact() {
        sendRaw(pair[1], hello(TestKeys.TWO_G_X));
        final PubkeyExchange.Outcome o = run(pair[0], TestKeys.G_X, 5_000);
        assertTrue(o.ok(), String.valueOf(o));
        assertEquals("00" + HexFormat.of().formatHex(TestKeys.G_X), HexFormat.of().formatHex(recvRaw(pair[1])));
    }

    static byte[] hello(final byte[] key) {
        final byte[] h = new byte[33];
        System.arraycopy(key, 0, h, 1, 32);
        return h;
    }

    private void assertRefused(final byte[] sdu, final PubkeyExchange.Failure expected) {
        sendRaw(pair[1], sdu);
        final PubkeyExchange.Outcome o = run(pair[0], TestKeys.G_X, 5_000);
        assertFalse(o.ok());
        assertNull(o.peerKey());
        assertEquals(expected, o.failure());
    }

    @Test
    void shortHelloIsRefused() {
        assertRefused(new byte[32], PubkeyExchange.Failure.SHORT);
    }

    /** recv(2) returns 0 for an empty record as for end of stream; either way the connection goes. */
    @Test
    void emptySduReadsAsClosed() {
        assertRefused(new byte[0], PubkeyExchange.Failure.CLOSED);
    }

    @Test
    void oversizeHelloIsRefused() {
        final byte[] h = Arrays.copyOf(hello(TestKeys.TWO_G_X), 34);
        assertRefused(h, PubkeyExchange.Failure.OVERSIZE);
    }

    @Test
    void aFullMtuSduIsOversize() {
        assertRefused(new byte[2048], PubkeyExchange.Failure.OVERSIZE);
    }

    @Test
    void badPrefixIsRefused() {
        final byte[] h = hello(TestKeys.TWO_G_X);
        h[0] = 0x01;
        assertRefused(h, PubkeyExchange.Failure.BAD_PREFIX);
    }

    @Test
    void keyOffTheCurveIsRefused() {
        assertRefused(hello(TestKeys.NOT_ON_CURVE), PubkeyExchange.Failure.INVALID_KEY);
    }

    @Test
    void peerClosingFirstIsClosed() throws Exception {
        Syscalls.close(pair[1]);
        pair[1] = -1;
        final PubkeyExchange.Outcome o = run(pair[0], TestKeys.G_X, 5_000);
        // the send may already see the reset; either way no key and a clear reason
        assertFalse(o.ok());
        assertTrue(o.failure() == PubkeyExchange.Failure.CLOSED
                || o.failure() == PubkeyExchange.Failure.SEND_FAILED, String.valueOf(o));
    }

    @Test
    void silentPeerTimesOut() {
        final long t0 = System.nanoTime();
        final PubkeyExchange.Outcome o = run(pair[0], TestKeys.G_X, 200);
        assertEquals(PubkeyExchange.Failure.TIMEOUT, o.failure());
        assertTrue(System.nanoTime() - t0 >= 200_000_000L, "returned before its deadline");
    }

    /** Seeded random SDUs and mutations of a valid hello: a key is accepted only for a well-formed valid hello. */
    @Test
    void fuzzedSdusAreRefusedOrAcceptedExactly() throws Exception {
        final Random rnd = new Random(0xB1E5EEDL);
        for (int i = 0; i < 400; i++) {
            final byte[] sdu;
            if (i % 2 == 0) {
                sdu = new byte[rnd.nextInt(80)];
                rnd.nextBytes(sdu);
                if (sdu.length > 0 && rnd.nextBoolean()) {
                    sdu[0] = 0;
                }
            } else {
                sdu = hello(rnd.nextBoolean() ? TestKeys.TWO_G_X : TestKeys.G_X);
                sdu[rnd.nextInt(33)] ^= (byte) (1 << rnd.nextInt(8));
            }
            close();
            open();
            sendRaw(pair[1], sdu);
            final PubkeyExchange.Outcome o = run(pair[0], TestKeys.G_X, 5_000);
            final boolean valid = sdu.length == 33 && sdu[0] == 0
                    && TestKeys.INSTANCE.isValidXOnly(Arrays.copyOfRange(sdu, 1, 33));
            assertEquals(valid, o.ok(), () -> "sdu " + HexFormat.of().formatHex(sdu) + " -> " + o);
            if (valid) {
                assertArrayEquals(Arrays.copyOfRange(sdu, 1, 33), o.peerKey());
            }
        }
    }

    /** The codec alone over windows of a larger buffer: never reads outside [off, off+len). */
    @Test
    void fuzzedHelloCheckStaysInItsWindow() {
        final Random rnd = new Random(0x5EED_B1EL);
        for (int i = 0; i < 5_000; i++) {
            final byte[] big = new byte[128];
            rnd.nextBytes(big);
            final int len = rnd.nextInt(60);
            final int off = rnd.nextInt(128 - len);
            if (rnd.nextBoolean() && len == 33) {
                big[off] = 0;
            }
            final MemorySegment whole = MemorySegment.ofArray(big);
            final PubkeyHello.Error a = PubkeyHello.check(whole, off, len, TestKeys.INSTANCE);
            final PubkeyHello.Error b = PubkeyHello.check(MemorySegment.ofArray(
                    Arrays.copyOfRange(big, off, off + len)), 0, len, TestKeys.INSTANCE);
            assertEquals(b, a);
        }
    }

    @Test
    void tieBreakKeepsExactlyOneOfTwoCrossedConnections() {
        final NodeAddr a = TestKeys.INSTANCE.nodeAddr(TestKeys.G_X);
        final NodeAddr b = TestKeys.INSTANCE.nodeAddr(TestKeys.TWO_G_X);
        final NodeAddr small = a.compareTo(b) < 0 ? a : b;
        final NodeAddr large = small == a ? b : a;
        // the smaller node's outbound survives: it keeps its outbound, the larger keeps that connection inbound
        assertTrue(TieBreak.keepOutbound(small, large));
        assertTrue(TieBreak.keepInbound(large, small));
        // and the other connection (large -> small) is dropped by both ends
        assertFalse(TieBreak.keepOutbound(large, small));
        assertFalse(TieBreak.keepInbound(small, large));
        // unsigned byte order: 0x80.. is above 0x7f..
        final NodeAddr hi = NodeAddr.ofHex("80000000000000000000000000000000");
        final NodeAddr lo = NodeAddr.ofHex("7fffffffffffffffffffffffffffffff");
        assertTrue(TieBreak.keepOutbound(lo, hi));
        assertTrue(TieBreak.keepInbound(hi, lo));
        assertTrue(TieBreak.keepInbound(hi, hi), "equal addresses: the accepting side keeps the connection");
        assertFalse(TieBreak.keepOutbound(hi, hi));
    }
}
