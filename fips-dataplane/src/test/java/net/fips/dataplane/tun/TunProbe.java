package net.fips.dataplane.tun;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Child-process side of {@link TunDeviceTest}, run inside a fresh network namespace ({@code ip netns exec}) on
 * the class path. It prints one line per step for the test to check:
 * <ul>
 *   <li>{@code exchange <addr> <name> <mtu>}: open the device; open again without replacing (must be refused);
 *       wait for {@code GO} on stdin (the test inspects the namespace with {@code ip}); send a UDP datagram to
 *       {@code fd12:3456::7} and read it from the device; write a UDP packet from {@code fd12:3456::7} into the
 *       device and receive it on a socket bound to our address; replace the device with a second open and read
 *       the first descriptor; close both and wait for {@code EXIT};</li>
 *   <li>{@code open <addr> <name> <mtu>}: try to open, print {@code OK} or {@code ERROR reason=...}.</li>
 * </ul>
 */
public final class TunProbe {
    static final String PEER = "fd12:3456::7";
    static final int PEER_PORT = 9999;
    private static final int SLOT = 2048;

    private TunProbe() {
    }

    /**
     * @param args mode, address, name, MTU
     * @throws Exception any failure ends the process with a stack trace (the test then shows the output)
     */
    public static void main(final String[] args) throws Exception {
        final Inet6Address addr = (Inet6Address) InetAddress.getByName(args[1]);
        final TunConfig cfg = TunConfig.of(addr).withName(args[2]).withMtu(Integer.parseInt(args[3]));
        if (args[0].equals("open")) {
            try (TunDevice dev = TunDevice.open(cfg)) {
                System.out.println("OK " + dev);
            } catch (final TunException e) {
                System.out.println("ERROR reason=" + e.reason() + " errno=" + e.errno() + " message=" + e.getMessage());
            }
            return;
        }
        exchange(cfg);
    }

    private static void exchange(final TunConfig cfg) throws Exception {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment pool = arena.allocate(4L * SLOT, 64);
            final TunDevice dev = TunDevice.open(cfg);
            System.out.println("OPEN name=" + dev.name() + " index=" + dev.index() + " mtu=" + dev.mtu()
                    + " rule=" + dev.policyRuleInstalled());
            try {
                TunDevice.open(cfg.withReplaceExisting(false)).close();
                System.out.println("SECOND-NOREPLACE opened");
            } catch (final TunException e) {
                System.out.println("SECOND-NOREPLACE reason=" + e.reason() + " message=" + e.getMessage());
            }
            // wakeup() ends an unbounded wait; packets the kernel queued meanwhile (RS, MLD) come first.
            dev.wakeup();
            int drained = 0;
            int woke;
            while ((woke = dev.reader().receive(pool, 0, SLOT, -1)) > 0 && drained < 64) {
                drained++;
            }
            System.out.println("WAKE rc=" + woke + " drained=" + drained);
            // A packet longer than the slot is reported, not handed over cut short.
            try (DatagramSocket s = new DatagramSocket()) {
                final byte[] big = new byte[600];
                s.send(new DatagramPacket(big, big.length, new InetSocketAddress(InetAddress.getByName(PEER), 7)));
            }
            int small = 0;
            for (int i = 0; i < 64; i++) {
                small = dev.reader().receive(pool, 0, 256, 3000);
                if (small < 0 || small == 0) {
                    break;
                }
            }
            System.out.println("SMALL-SLOT rc=" + small + " truncated=" + dev.reader().truncated());
            System.out.println("AWAIT-GO");
            if (!"GO".equals(in.readLine())) {
                throw new IllegalStateException("expected GO");
            }

            // Outbound: the kernel routes fd00::/8 into the device; skip whatever else it emits (RS, MLD).
            final String token = "fips-tun-read-" + ProcessHandle.current().pid();
            final InetAddress peer = InetAddress.getByName(PEER);
            try (DatagramSocket s = new DatagramSocket()) {
                final byte[] p = token.getBytes(StandardCharsets.US_ASCII);
                s.send(new DatagramPacket(p, p.length, new InetSocketAddress(peer, PEER_PORT)));
            }
            int skipped = 0;
            boolean found = false;
            final long before = dev.reader().packets();
            final long slot = SLOT;
            for (int i = 0; i < 64 && !found; i++) {
                final int n = dev.reader().receive(pool, slot, SLOT, 3000);
                if (n <= 0) {
                    System.out.println("READ-FAILED rc=" + n);
                    break;
                }
                final int nh = pool.get(JAVA_BYTE, slot + 6) & 0xff;
                final InetAddress dst = InetAddress.getByAddress(bytes(pool, slot + 24, 16));
                if (nh != 17 || !dst.equals(peer)) {
                    skipped++;
                    continue;
                }
                found = true;
                final int version = (pool.get(JAVA_BYTE, slot) & 0xff) >>> 4;
                final int payloadLength = u16(pool, slot + 4);
                final InetAddress src = InetAddress.getByAddress(bytes(pool, slot + 8, 16));
                final int dport = u16(pool, slot + 42);
                final String payload = new String(bytes(pool, slot + 48, n - 48), StandardCharsets.US_ASCII);
                System.out.println("READ version=" + version + " nh=" + nh + " len=" + n + " plen=" + payloadLength
                        + " src=" + TunDevice.hostAddress((Inet6Address) src) + " dst="
                        + TunDevice.hostAddress((Inet6Address) dst) + " dport=" + dport + " match="
                        + payload.equals(token) + " skipped=" + skipped + " counted="
                        + (dev.reader().packets() - before));
            }

            // Inbound: a packet written into the device is delivered to a local socket on our address.
            try (DatagramSocket rx = new DatagramSocket(new InetSocketAddress(cfg.address(), 0))) {
                rx.setSoTimeout(3000);
                final String text = "fips-tun-write-" + ProcessHandle.current().pid();
                final int len = udpPacket(pool, 0, ((Inet6Address) peer).getAddress(), 4242,
                        cfg.address().getAddress(), rx.getLocalPort(), text.getBytes(StandardCharsets.US_ASCII));
                final int rc = dev.writer().write(pool, 0, len);
                final DatagramPacket got = new DatagramPacket(new byte[SLOT], SLOT);
                rx.receive(got);
                System.out.println("WRITE rc=" + rc + " len=" + len + " from="
                        + TunDevice.hostAddress((Inet6Address) got.getAddress()) + " port=" + got.getPort()
                        + " match=" + new String(got.getData(), 0, got.getLength(), StandardCharsets.US_ASCII)
                        .equals(text) + " counted=" + dev.writer().packets());
            }

            // The reference's replace: a second open deletes the first device; the first descriptor is dead.
            final TunDevice second = TunDevice.open(cfg);
            final int old = dev.reader().read(pool, 0, SLOT);
            System.out.println("REPLACED index=" + second.index() + " oldRead=" + old + " gone="
                    + TunDevice.isDeviceGone(old));
            dev.close();
            System.out.println("OLD-CLOSED");
            if (!"NEXT".equals(in.readLine())) {
                throw new IllegalStateException("expected NEXT");
            }
            second.close();
            System.out.println("CLOSED");
            if (!"EXIT".equals(in.readLine())) {
                throw new IllegalStateException("expected EXIT");
            }
        }
    }

    /** Writes IPv6 + UDP (checksummed) at {@code off}; returns the packet length. */
    static int udpPacket(final MemorySegment m, final long off, final byte[] src, final int sport, final byte[] dst,
                         final int dport, final byte[] payload) {
        final int udpLen = 8 + payload.length;
        m.asSlice(off, 48).fill((byte) 0);
        m.set(JAVA_BYTE, off, (byte) 0x60);
        putU16(m, off + 4, udpLen);
        m.set(JAVA_BYTE, off + 6, (byte) 17);
        m.set(JAVA_BYTE, off + 7, (byte) 64);
        MemorySegment.copy(src, 0, m, JAVA_BYTE, off + 8, 16);
        MemorySegment.copy(dst, 0, m, JAVA_BYTE, off + 24, 16);
        putU16(m, off + 40, sport);
        putU16(m, off + 42, dport);
        putU16(m, off + 44, udpLen);
        MemorySegment.copy(payload, 0, m, JAVA_BYTE, off + 48, payload.length);
        long sum = 0;
        for (int i = 0; i < 32; i += 2) {
            sum += u16(m, off + 8 + i);
        }
        sum += udpLen + 17;
        for (int i = 0; i < udpLen; i += 2) {
            final int hi = m.get(JAVA_BYTE, off + 40 + i) & 0xff;
            final int lo = i + 1 < udpLen ? m.get(JAVA_BYTE, off + 41 + i) & 0xff : 0;
            sum += (hi << 8) | lo;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        final int ck = (int) (~sum & 0xffff);
        putU16(m, off + 46, ck == 0 ? 0xffff : ck);
        return 40 + udpLen;
    }

    private static int u16(final MemorySegment m, final long off) {
        return ((m.get(JAVA_BYTE, off) & 0xff) << 8) | (m.get(JAVA_BYTE, off + 1) & 0xff);
    }

    private static void putU16(final MemorySegment m, final long off, final int v) {
        m.set(JAVA_BYTE, off, (byte) (v >>> 8));
        m.set(JAVA_BYTE, off + 1, (byte) v);
    }

    private static byte[] bytes(final MemorySegment m, final long off, final int len) {
        final byte[] b = new byte[Math.max(len, 0)];
        MemorySegment.copy(m, JAVA_BYTE, off, b, 0, b.length);
        return b;
    }
}
