package net.fips.dataplane.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.UnixSeqPacket;
import net.fips.ffm.linux.WakeFd;

/**
 * The shared sendmmsg loop and socket waits over a connected AF_UNIX SOCK_SEQPACKET pair, whose receive queue fills
 * (EAGAIN) while nobody reads, and which fails every send (EPIPE) once the reader is closed.
 */
@Timeout(30)
class MmsgSendTest {
    private static final int M = 8;
    private static final int SIZE = 1000;

    @Test
    void sendsAFullQueueDropsAtEagainAndAClosedPeerSkipsEachMessage() throws Exception {
        final int[] pair = UnixSeqPacket.pair();
        boolean readerOpen = true;
        try (Arena arena = Arena.ofConfined()) {
            final CallState cs = CallState.allocate(arena);
            final MmsgVector vec = new MmsgVector(arena, M, 1, 0);
            final MemorySegment data = arena.allocate((long) M * SIZE);
            for (int i = 0; i < M; i++) {
                vec.iov(i, 0, data, (long) i * SIZE, SIZE);
            }
            final SocketWait wait = new SocketWait(arena, cs, -1);
            final MmsgSend dropAtOnce = new MmsgSend(cs, vec, wait, 0);
            // Nobody reads: whole batches go until the queue is full, then the rest of one batch is dropped.
            long accepted = 0;
            int sent = M;
            for (int round = 0; round < 100_000 && sent == M; round++) {
                sent = dropAtOnce.send(pair[0], M);
                accepted += sent;
                assertEquals((long) sent * SIZE, dropAtOnce.bytes(), "bytes of the accepted messages");
            }
            assertTrue(sent < M, "the queue filled");
            assertTrue(accepted > 0);
            assertEquals(1, dropAtOnce.eagain());
            assertEquals(M - sent, dropAtOnce.drops());
            assertEquals(0, dropAtOnce.errors());
            // Still full: a short wait for room times out and drops the whole batch.
            final MmsgSend waitBriefly = new MmsgSend(cs, vec, wait, 20);
            assertEquals(0, waitBriefly.send(pair[0], M));
            assertEquals(M, waitBriefly.drops());
            assertEquals(1, waitBriefly.eagain());
            assertFalse(wait.writable(pair[0], 0), "no room");
            // The reader goes away: every message is a hard error (EPIPE), counted and skipped, none dropped.
            Syscalls.closeQuietly(pair[1]);
            readerOpen = false;
            assertEquals(0, dropAtOnce.send(pair[0], M));
            assertEquals(M, dropAtOnce.errors());
            assertEquals(0, dropAtOnce.drops());
            assertEquals(0L, dropAtOnce.bytes());
        } finally {
            Syscalls.closeQuietly(pair[0]);
            if (readerOpen) {
                Syscalls.closeQuietly(pair[1]);
            }
        }
    }

    @Test
    void readableWaitsForDataOrTheWakeUpAndResetsIt() throws Exception {
        final int[] pair = UnixSeqPacket.pair();
        try (Arena arena = Arena.ofConfined(); WakeFd wake = WakeFd.open()) {
            final CallState cs = CallState.allocate(arena);
            final SocketWait wait = new SocketWait(arena, cs, wake.fd());
            assertFalse(wait.readable(pair[1], 0), "nothing queued");
            wake.wake();
            assertFalse(wait.readable(pair[1], 5_000), "woken, the socket still empty");
            assertFalse(wait.readable(pair[1], 0), "the wake-up was reset, not seen twice");
            final MemorySegment one = arena.allocate(1);
            assertEquals(1, Syscalls.send(cs, pair[0], one, 1, 0));
            assertTrue(wait.readable(pair[1], 5_000), "a packet is queued");
            assertTrue(wait.writable(pair[0], 0), "room to send");
        } finally {
            Syscalls.closeQuietly(pair[0]);
            Syscalls.closeQuietly(pair[1]);
        }
    }
}
