package net.fips.ffm.linux;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;

/**
 * {@code sockaddr_l2} bytes (transports.md §5.2, §8.6 item 3), the kernel probe, and the AF_UNIX SOCK_SEQPACKET
 * stand-in's record semantics through the same FFM calls.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class L2capTest {

    @Test
    void sockaddrL2IsByteExact() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment sa = arena.allocate(16).fill((byte) 0x55);
            final int len = L2cap.encode(sa, 0x0085, L2cap.parseAddress("AA:BB:CC:DD:EE:FF"), L2cap.BDADDR_LE_PUBLIC);
            assertEquals(14, len);
            // family 31 LE, psm 0x0085 LE, bdaddr reversed, cid 0, type 1, pad 0; byte 14 untouched
            assertEquals("1f008500ffeeddccbbaa0000010055",
                    HexFormat.of().formatHex(sa.asSlice(0, 15).toArray(ValueLayout.JAVA_BYTE)));
            assertEquals("AA:BB:CC:DD:EE:FF", L2cap.formatAddress(L2cap.decodeAddress(sa)));
            assertEquals(0x85, L2cap.decodePsm(sa));
            assertEquals(1, L2cap.decodeAddressType(sa));

            L2cap.encode(sa, 0xFFFF, new byte[6], L2cap.BDADDR_LE_RANDOM);
            assertEquals("1f00ffff000000000000000002", HexFormat.of().formatHex(sa.asSlice(0, 13)
                    .toArray(ValueLayout.JAVA_BYTE)));
        }
    }

    @Test
    void addressTextParsesCaseInsensitivelyAndPrintsUppercase() {
        assertArrayEquals(new byte[] {0x11, 0x22, 0x33, 0x44, 0x55, (byte) 0xAB},
                L2cap.parseAddress("11:22:33:44:55:ab"));
        assertEquals("11:22:33:44:55:AB", L2cap.formatAddress(L2cap.parseAddress("11:22:33:44:55:aB")));
        for (final String bad : new String[] {"", "11:22:33:44:55", "11:22:33:44:55:66:77", "11-22-33-44-55-66",
                "1g:22:33:44:55:66", "11:22:33:44:55:6"}) {
            assertThrows(IllegalArgumentException.class, () -> L2cap.parseAddress(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> L2cap.encode(MemorySegment.ofArray(new byte[14]), 0x85,
                new byte[5], 1));
        assertThrows(IllegalArgumentException.class, () -> L2cap.encode(MemorySegment.ofArray(new byte[14]), 0x10000,
                new byte[6], 1));
    }

    /** On this kernel (no CONFIG_BT) the probe must say so; where Bluetooth exists it must open a socket. */
    @Test
    void probeClassifiesTheKernel() {
        final L2cap.Probe p = L2cap.probe();
        if (p.support() == L2cap.Support.AVAILABLE) {
            assertEquals(0, p.errno());
        } else {
            assertNotEquals(0, p.errno());
            assertTrue(p.describe().length() > 10);
        }
        if (p.support() == L2cap.Support.NO_KERNEL_SUPPORT) {
            assertEquals(Errno.EAFNOSUPPORT, p.errno());
            assertEquals("no Bluetooth on this host (AF_BLUETOOTH unsupported by the kernel)", p.describe());
            final ErrnoException e = assertThrows(ErrnoException.class, L2cap::openSocket);
            assertEquals(Errno.EAFNOSUPPORT, e.errno());
        }
    }

    @Test
    void unixSeqPacketPairKeepsRecordBoundaries() throws Exception {
        final int[] pair = UnixSeqPacket.pair();
        try (Arena arena = Arena.ofConfined()) {
            final CallState cs = CallState.forCurrentThread();
            final MemorySegment buf = arena.allocate(4096);
            buf.fill((byte) 7);
            assertEquals(33, Syscalls.send(cs, pair[0], buf, 33, 0));
            assertEquals(2048, Syscalls.send(cs, pair[0], buf, 2048, 0));
            assertEquals(33, Syscalls.recv(cs, pair[1], buf, 4096, 0));
            // a record longer than the buffer is cut to the buffer, the rest discarded (one record per recv)
            assertEquals(100, Syscalls.recv(cs, pair[1], buf, 100, 0));
            assertEquals(-Errno.EAGAIN, Syscalls.recv(cs, pair[1], buf, 4096, 0));
            Syscalls.close(pair[0]);
            pair[0] = -1;
            assertEquals(0, Syscalls.recv(cs, pair[1], buf, 4096, 0));
        } finally {
            Syscalls.closeQuietly(pair[0]);
            Syscalls.closeQuietly(pair[1]);
        }
    }

    @Test
    void bluetoothOptionsOnANonBluetoothSocketFailWithErrno() throws Exception {
        final int[] pair = UnixSeqPacket.pair();
        try {
            assertTrue(L2cap.mtuOption(pair[0], L2cap.BT_SNDMTU) < 0);
            assertTrue(L2cap.forceActive(pair[0]) < 0);
            assertThrows(ErrnoException.class, () -> L2cap.setRecvMtu(pair[0], 2048));
        } finally {
            Syscalls.closeQuietly(pair[0]);
            Syscalls.closeQuietly(pair[1]);
        }
    }
}
