package net.fips.dataplane.udp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PktinfoUdpSocketTest {
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void closeWakesTheWaitingReceiverAtOnce() throws Exception {
        Assumptions.assumeTrue(PktinfoUdpSocket.available(), "native bindings unavailable");
        final PktinfoUdpSocket sock = PktinfoUdpSocket.open(new InetSocketAddress("::1", 0), 512);
        final SynchronousQueue<byte[]> got = new SynchronousQueue<>();
        final AtomicReference<PktinfoUdpSocket.Datagram> last = new AtomicReference<>();
        final Thread receiver = Thread.ofPlatform().name("pktinfo-receiver").start(() -> {
            final byte[] buf = new byte[512];
            PktinfoUdpSocket.Datagram d;
            try {
                while ((d = sock.receive(buf)) != null) {
                    got.put(Arrays.copyOf(buf, d.length()));
                }
                last.set(null);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                sock.release();
            }
        });
        try (DatagramSocket client = new DatagramSocket(0, InetAddress.getByName("::1"))) {
            final byte[] hello = {1, 2, 3};
            client.send(new DatagramPacket(hello, hello.length, sock.localAddress()));
            final byte[] echoed = got.poll(20, TimeUnit.SECONDS);
            assertNotNull(echoed, "the datagram arrived");
            assertArrayEquals(hello, echoed);
        }
        // The receiver is back in poll (its 2 s slice). close() must wake it: well before the slice ends.
        final long t0 = System.nanoTime();
        sock.close();
        receiver.join(1_500);
        assertFalse(receiver.isAlive(), "close did not wake the receiver within 1.5 s");
        assertNull(last.get());
        assertEquals(true, System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2));
        sock.close(); // idempotent, after release too
    }
}
