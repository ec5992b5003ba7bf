package net.fips.dataplane.udp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.transport.Transport;

/**
 * Loopback tests of the NAT-traversal socket and its adoption into a UDP transport slot (discovery-gateway.md §2.6,
 * ADR 0046): the punched socket's own port carries the transport's traffic, punch magic is dropped and counted, and
 * a vacated slot receives nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdoptionSlotTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    private static ReceiveBatch slots(final Arena arena, final int n) {
        final MemorySegment region = arena.allocate((long) n * 2048, 64);
        final ReceiveBatch rb = new ReceiveBatch(arena, n);
        for (int i = 0; i < n; i++) {
            rb.slot(i, region, (long) i * 2048, 2048);
        }
        rb.offer(n);
        return rb;
    }

    private static byte[] bytes(final ReceiveBatch rb, final int k) {
        return rb.segment(k).asSlice(rb.offset(k), rb.length(k)).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void traversalSocketsExchangeDatagramsOnLoopback() throws Exception {
        try (TraversalSocket a = TraversalSocket.open(LOOPBACK); TraversalSocket b = TraversalSocket.open(LOOPBACK)) {
            assertTrue(a.localAddress().getPort() > 0);
            assertEquals(5, a.send(new byte[]{1, 2, 3, 4, 5}, 5, b.localAddress()));
            final byte[] in = new byte[64];
            final TraversalSocket.Received r = b.receive(in, 2000);
            assertNotNull(r);
            assertEquals(5, r.length());
            assertEquals(a.localAddress(), r.from());
            assertArrayEquals(new byte[]{1, 2, 3, 4, 5}, Arrays.copyOf(in, 5));
            assertNull(b.receive(in, 0), "nothing more queued");
        }
    }

    @Test
    void traversalSocketRefusesIpv6() {
        assertThrows(UdpTransportException.class, () -> TraversalSocket.open(new InetSocketAddress("::1", 0)));
    }

    @Test
    void adoptedSocketCarriesTrafficAndPunchMagicIsDroppedAndCounted() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport slot = UdpTransport.openAdoptionSlot(new UdpTransportConfig().instanceName("nostr-nat")
                     .mtuBytes(1280));
             TraversalSocket peer = TraversalSocket.open(LOOPBACK)) {
            assertTrue(slot.isAdoptionSlot());
            assertTrue(slot.isVacant());
            assertEquals(Transport.State.DOWN, slot.state());
            final ReceiveBatch rb = slots(arena, 8);
            assertEquals(0, slot.receive(rb, 0), "a vacant slot receives nothing");
            final int fdBefore = slot.fileDescriptor();

            final TraversalSocket punched = TraversalSocket.open(LOOPBACK);
            final InetSocketAddress port = punched.localAddress();
            slot.adopt(punched);
            punched.close();   // frees its buffers; the descriptor now belongs to the slot
            assertFalse(slot.isVacant());
            assertEquals(Transport.State.UP, slot.state());
            assertEquals(fdBefore, slot.fileDescriptor(), "same descriptor number: the agents need no change");
            assertEquals(port, slot.localAddress());
            assertTrue(slot.receiveBufferBytes() > 0);

            // A late probe, a late ack, a 3-byte datagram starting like one, then an FMP-looking datagram.
            final byte[] probe = {0x4E, 0x50, 0x54, 0x43, 0, 0, 0, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                    15, 16};
            final byte[] ack = probe.clone();
            ack[3] = 0x41;
            final byte[] shortOne = {0x4E, 0x50, 0x54};
            final byte[] fmp = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05};
            for (final byte[] d : new byte[][]{probe, ack, shortOne, fmp}) {
                assertEquals(d.length, peer.send(d, d.length, port));
            }
            int got = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            final List<byte[]> delivered = new ArrayList<>();
            while (got < 2 && System.nanoTime() < deadline) {
                final int n = slot.receive(rb, 500);
                for (int k = 0; k < n; k++) {
                    delivered.add(bytes(rb, k));
                    assertEquals(peer.localAddress(), rb.sourceAddress(k));
                }
                got += n;
            }
            assertEquals(2, delivered.size());
            assertArrayEquals(shortOne, delivered.get(0));
            assertArrayEquals(fmp, delivered.get(1));
            assertEquals(2, slot.counters().punchDropped());
            assertEquals(4, slot.counters().packetsIn(), "dropped ones count as received, as in the reference");

            // The slot sends from the punched port.
            final MemorySegment out = arena.allocate(16);
            out.fill((byte) 9);
            final SendBatch sb = new SendBatch(4);
            sb.add(out, 0, 16, slot.destination(peer.localAddress()));
            assertEquals(1, slot.send(sb));
            final byte[] in = new byte[64];
            final TraversalSocket.Received r = peer.receive(in, 2000);
            assertNotNull(r);
            assertEquals(port, r.from());
            assertEquals(16, r.length());

            try (TraversalSocket second = TraversalSocket.open(LOOPBACK)) {
                assertThrows(IllegalStateException.class, () -> slot.adopt(second),
                        "an occupied slot refuses a second socket");
            }

            assertTrue(slot.vacate());
            assertTrue(slot.isVacant());
            assertFalse(slot.vacate());
            peer.send(fmp, fmp.length, port);
            assertEquals(0, slot.receive(rb, 200), "the adopted socket is closed; its port is gone");
            final long drops = slot.counters().sendDrops();
            assertEquals(0, slot.send(sb), "a vacant slot sends nothing (its placeholder must stay unbound)");
            assertEquals(drops + 1, slot.counters().sendDrops());
            assertEquals(new InetSocketAddress("0.0.0.0", 0), slot.localAddress());
        }
    }

    @Test
    void plainTransportsAreNoSlots() throws Exception {
        try (UdpTransport t = UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0"));
             TraversalSocket s = TraversalSocket.open(LOOPBACK)) {
            assertFalse(t.isAdoptionSlot());
            assertThrows(IllegalStateException.class, () -> t.adopt(s));
        }
    }
}
