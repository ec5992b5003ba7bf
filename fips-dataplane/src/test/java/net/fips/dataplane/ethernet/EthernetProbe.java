package net.fips.dataplane.ethernet;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import net.fips.ffm.NetOrder;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.MmsgVector;
import net.fips.ffm.linux.PacketSockets;
import net.fips.ffm.linux.Syscalls;

/**
 * Child-process side of {@link EthernetTransportNamespaceTest}, run inside a network namespace
 * ({@code ip netns exec}) on the class path. Arguments: interface, 64 hex digits of beacon key or {@code -}, and
 * optionally {@code await} ({@link EthernetTransport#openOrAwait}). It opens an {@link EthernetTransport} (printing
 * {@code OPEN ...}, {@code WAITING ...} or {@code ERROR reason=...}) and then runs one command
 * per stdin line, printing one result line per command (and {@code FRAME}/{@code DISCOVERED} lines before it):
 * <ul>
 *   <li>{@code INFO}, {@code COUNTERS}, {@code BEACON}, {@code DRAIN}, {@code EXIT};</li>
 *   <li>{@code SEND <mac> <hex> [count]}: count copies of the packet in one batch, the first 4 bytes of copy i
 *       replaced by i (big endian) when count &gt; 1;</li>
 *   <li>{@code RAW <mac> <hex>}: the bytes as the whole frame payload, from a second plain AF_PACKET socket;</li>
 *   <li>{@code RECV <n> <ms>}: receive until n packets or ms elapse; {@code FRAME src= len= hex=} per packet.</li>
 * </ul>
 */
public final class EthernetProbe {
    private static final int SLOT = 2048 + 64;
    private static final int HEADROOM = 64;

    private EthernetProbe() {
    }

    /**
     * @param args interface, beacon key hex or "-"
     * @throws Exception any failure ends the process with a stack trace (the test shows the output)
     */
    public static void main(final String[] args) throws Exception {
        EthernetTransportConfig cfg = EthernetTransportConfig.of(args[0]);
        if (!args[1].equals("-")) {
            cfg = cfg.withBeaconKey(HexFormat.of().parseHex(args[1]));
        }
        final EthernetTransport t;
        final boolean await = args.length > 2 && args[2].equals("await");
        try {
            t = await ? EthernetTransport.openOrAwait(cfg) : EthernetTransport.open(cfg);
        } catch (final EthernetTransportException e) {
            System.out.println("ERROR reason=" + e.reason() + " errno=" + e.errno() + " message=" + e.getMessage());
            return;
        }
        System.out.println((t.awaitingInterface() ? "WAITING " : "OPEN ") + info(t));
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try (Arena arena = Arena.ofConfined(); t) {
            final int slots = 128;
            final MemorySegment pool = arena.allocate((long) SLOT * slots, 64);
            final FrameReceiveBatch rb = new FrameReceiveBatch(32);
            final FrameSendBatch sb = new FrameSendBatch(128);
            String line;
            while ((line = in.readLine()) != null) {
                final String[] w = line.trim().split("\\s+");
                switch (w[0]) {
                    case "INFO" -> System.out.println("INFO " + info(t));
                    case "COUNTERS" -> System.out.println("COUNTERS " + t.counters().snapshot());
                    case "BEACON" -> System.out.println("BEACON rc=" + t.sendBeacon());
                    case "DRAIN" -> {
                        int n = 0;
                        for (final DiscoveredBeacon d : t.drainBeacons()) {
                            System.out.println("DISCOVERED mac=" + MacAddress.format(d.mac()) + " key="
                                    + HexFormat.of().formatHex(d.xOnlyKey()));
                            n++;
                        }
                        System.out.println("DRAINED " + n);
                    }
                    case "SEND" -> {
                        final long mac = MacAddress.parse(w[1]);
                        final byte[] p = HexFormat.of().parseHex(w[2]);
                        final int count = w.length > 3 ? Integer.parseInt(w[3]) : 1;
                        sb.clear();
                        for (int i = 0; i < count; i++) {
                            final long off = (long) i * SLOT + HEADROOM;
                            MemorySegment.copy(p, 0, pool, ValueLayout.JAVA_BYTE, off, p.length);
                            if (count > 1 && p.length >= 4) {
                                pool.set(NetOrder.U32_BE, off, i);
                            }
                            sb.add(pool, off, p.length, mac);
                        }
                        System.out.println("SENT " + t.send(sb));
                    }
                    case "RAW" -> System.out.println("RAW rc=" + raw(t, MacAddress.parse(w[1]),
                            HexFormat.of().parseHex(w[2])));
                    case "RECV" -> {
                        final int want = Integer.parseInt(w[1]);
                        final long deadline = System.nanoTime() + Long.parseLong(w[2]) * 1_000_000L;
                        int got = 0;
                        while (got < want || want == 0) {
                            final long left = (deadline - System.nanoTime()) / 1_000_000L;
                            if (left <= 0) {
                                break;
                            }
                            for (int i = 0; i < rb.capacity(); i++) {
                                rb.slot(i, pool, (long) i * SLOT + HEADROOM, SLOT - HEADROOM);
                            }
                            rb.offer(rb.capacity());
                            final int n = t.receive(rb, (int) Math.min(left, 200));
                            for (int k = 0; k < n; k++) {
                                final int len = rb.length(k);
                                final byte[] b = new byte[Math.min(len, 48)];
                                MemorySegment.copy(rb.segment(k), ValueLayout.JAVA_BYTE, rb.offset(k), b, 0,
                                        b.length);
                                System.out.println("FRAME src=" + MacAddress.format(rb.source(k)) + " len=" + len
                                        + " hex=" + HexFormat.of().formatHex(b));
                            }
                            got += n;
                        }
                        System.out.println("RECVD " + got);
                    }
                    case "EXIT" -> {
                        System.out.println("BYE");
                        return;
                    }
                    default -> System.out.println("UNKNOWN " + line);
                }
            }
        }
    }

    private static String info(final EthernetTransport t) {
        return "mac=" + MacAddress.format(t.localMac()) + " mtu=" + t.mtu() + " ifmtu=" + t.interfaceMtu()
                + " ifindex=" + t.interfaceIndex() + " reopens=" + t.counters().reopens();
    }

    /** One frame with arbitrary payload bytes from a fresh AF_PACKET socket (bypassing the codec). */
    private static int raw(final EthernetTransport t, final long mac, final byte[] payload) throws Exception {
        final int fd = Syscalls.socket(PacketSockets.AF_PACKET, PacketSockets.SOCK_DGRAM | Linux.SOCK_CLOEXEC,
                NetOrder.htons(t.etherType()) & 0xFFFF);
        try (Arena a = Arena.ofConfined()) {
            final MmsgVector v = new MmsgVector(a, 1, 1, 0);
            final MemorySegment buf = a.allocate(Math.max(1, payload.length));
            MemorySegment.copy(payload, 0, buf, ValueLayout.JAVA_BYTE, 0, payload.length);
            v.iov(0, 0, buf, 0, payload.length);
            PacketSockets.encode(v.nameBuffer(0), t.etherType(), t.interfaceIndex(), mac);
            v.name(0, v.nameBuffer(0), PacketSockets.SOCKADDR_LL_SIZE);
            return Syscalls.sendmsg(CallState.allocate(a), fd, v.msghdr(0), 0);
        } finally {
            Syscalls.closeQuietly(fd);
        }
    }
}
