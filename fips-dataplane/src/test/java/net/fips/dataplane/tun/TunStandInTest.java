package net.fips.dataplane.tun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.ffm.Errno;
import net.fips.ffm.linux.TunIoctl;

/**
 * The stand-in device moves whole packets both ways through the same reader and writer as a real TUN device, with
 * the virtio-net header when offloads are asked for, and refuses a configuration {@link TunDevice#open} refuses.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TunStandInTest {
    private static final String ADDR = "fd5e:1f00:aa01:2233:4455:6677:8899:aabb";

    private static TunConfig config() throws IOException {
        return TunConfig.of((Inet6Address) InetAddress.getByName(ADDR)).withName("fipsstand0");
    }

    @Test
    void plainPacketsCrossBothWaysWholeAndInOrder() throws Exception {
        try (TunStandIn s = TunStandIn.open(config()); Arena arena = Arena.ofConfined()) {
            final TunDevice d = s.device();
            try {
                assertFalse(d.vnetHeader());
                assertEquals(1280, d.mtu());
                final MemorySegment buf = arena.allocate(2048);
                assertEquals(0, d.reader().receive(buf, 0, 2048, 0), "nothing queued yet");
                final MemorySegment a = packet(arena, 100, (byte) 1);
                final MemorySegment b = packet(arena, 1280, (byte) 2);
                assertEquals(100, s.kernelWrite(a, 100));
                assertEquals(1280, s.kernelWrite(b, 1280));
                assertEquals(100, d.reader().read(buf, 0, 2048));
                assertEquals(-1, buf.asSlice(0, 100).mismatch(a));
                assertEquals(1280, d.reader().read(buf, 0, 2048));
                assertEquals(-1, buf.asSlice(0, 1280).mismatch(b));
                assertEquals(-Errno.EAGAIN, d.reader().read(buf, 0, 2048));
                assertEquals(100, d.writer().write(a, 0, 100));
                assertEquals(100, s.kernelRead(buf, 2048));
                assertEquals(-1, buf.asSlice(0, 100).mismatch(a));
                assertEquals(2, d.reader().packets());
                assertEquals(1, d.writer().packets());
            } finally {
                d.close();
            }
        }
    }

    @Test
    void withOffloadEveryPacketCarriesTheVirtioNetHeader() throws Exception {
        try (TunStandIn s = TunStandIn.open(config().withOffload(true)); Arena arena = Arena.ofConfined()) {
            final TunDevice d = s.device();
            try {
                assertTrue(d.vnetHeader());
                assertEquals(TunIoctl.TUN_F_CSUM | TunIoctl.TUN_F_TSO6, d.offloadFlags());
                final MemorySegment p = packet(arena, 200, (byte) 3);
                assertEquals(200, d.writer().write(p, 0, 200));
                final MemorySegment buf = arena.allocate(2048);
                assertEquals(TunIoctl.VIRTIO_NET_HDR_SIZE + 200, s.kernelRead(buf, 2048));
                for (int i = 0; i < TunIoctl.VIRTIO_NET_HDR_SIZE; i++) {
                    assertEquals(0, buf.get(ValueLayout.JAVA_BYTE, i), "a plain packet has an all-zero header");
                }
                assertEquals(-1, buf.asSlice(TunIoctl.VIRTIO_NET_HDR_SIZE, 200).mismatch(p));
            } finally {
                d.close();
            }
        }
    }

    @Test
    void anInvalidConfigurationIsRefusedAsByOpen() throws Exception {
        final TunException e = assertThrows(TunException.class, () -> TunStandIn.open(config().withMtu(1000)));
        assertEquals(TunException.Reason.INVALID_CONFIG, e.reason());
    }

    private static MemorySegment packet(final Arena arena, final int len, final byte fill) {
        final MemorySegment p = arena.allocate(len);
        p.fill(fill);
        p.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x60);
        return p;
    }
}
