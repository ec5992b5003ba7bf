package net.fips.dataplane.tun;

import static net.fips.dataplane.tun.TcpOffload.ACK;
import static net.fips.dataplane.tun.TcpOffload.BE_INT;
import static net.fips.dataplane.tun.TcpOffload.BE_SHORT;
import static net.fips.dataplane.tun.TcpOffload.IPV6_HEADER;
import static net.fips.dataplane.tun.TcpOffload.NH_TCP;
import static net.fips.dataplane.tun.TcpOffload.PSH;
import static net.fips.dataplane.tun.TcpOffload.TCP_ACK;
import static net.fips.dataplane.tun.TcpOffload.TCP_CHECKSUM;
import static net.fips.dataplane.tun.TcpOffload.TCP_DOFF;
import static net.fips.dataplane.tun.TcpOffload.TCP_FLAGS;
import static net.fips.dataplane.tun.TcpOffload.TCP_SEQ;
import static net.fips.dataplane.tun.TcpOffload.TCP_WINDOW;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;

import net.fips.dataplane.ipv6.InetChecksum;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.TunIoctl;

/**
 * The two kernels' side of one TCP bulk stream through two {@link TunStandIn}s, for the daemon's ahead-of-time
 * training: what {@code iperf3} through {@code fips0} makes the data plane do, without a TUN driver or a TCP stack.
 * The sending kernel writes data into the sender's device as Linux does with the TUN offloads on: super-segments
 * ({@code GSO_TCPV6}, {@code NEEDS_CSUM} with the pseudo-header sum, {@code gso_size} = the MSS) of 1 to 44
 * segments, timestamp option on, PSH now and then; without the header, one MSS-sized segment per packet with its
 * full checksum. So the sender's data plane reads, splits ({@link TcpOffload}), seals and sends them; the
 * receiver's opens them and writes them through its {@link TunCoalescer}. The receiving kernel reads what comes out
 * and answers each packet with a pure ACK (zero header, full checksum), which goes back the same way. Sequence and
 * acknowledgement numbers advance as in a real stream; nothing is retransmitted (a loss only ends a coalesced
 * train). The stream opens with a SYN carrying the MSS option, clamped on the way; the SYN-ACK's MSS sets the
 * segment size (a Packet Too Big lowers it). Beside the stream the sender's kernel pings the receiver's every 50 ms
 * (answered) and now and then sends a router solicitation to {@code ff02::2}, as Linux does into a fresh
 * {@code fips0}, so the non-TCP and non-FIPS branches of the path are taken too. A window of {@value #WINDOW} bytes
 * in flight keeps the sender near the path's rate, not above it; what stays in flight longer than
 * {@value #STALL_MS} ms (held during the session's handshake and then dropped, e.g.) counts as lost and frees the
 * window.
 *
 * <p>Runs on the caller's thread, polling the two kernel ends; each {@link #run} is bounded by its duration.
 */
public final class StandInTcpStream implements AutoCloseable {
    /** The window of bytes written and not yet read out of the receiver. */
    static final int WINDOW = 512 * 1024;
    /** How long a full window may go without a byte delivered before its bytes count as lost. */
    static final int STALL_MS = 50;
    private static final int VNET = TunIoctl.VIRTIO_NET_HDR_SIZE;
    private static final int TCP_HEADER = 32;   // 20 + NOP, NOP, timestamps (10)
    private static final int HEADERS = IPV6_HEADER + TCP_HEADER;
    /** A SYN's headers: 20 bytes of TCP and the MSS option. */
    private static final int SYN_HEADERS = IPV6_HEADER + 24;
    private static final int SYN_INTERVAL_NS = 100_000_000;
    private static final int NH_ICMPV6 = 58;
    private static final int ICMPV6_PACKET_TOO_BIG = 2;
    private static final int ICMPV6_ECHO_REQUEST = 128;
    private static final int ICMPV6_ECHO_REPLY = 129;
    private static final int ICMPV6_ROUTER_SOLICITATION = 133;
    /** A ping each way this often, and a packet to a non-FIPS (link-local multicast) address each tenth time. */
    private static final int PING_INTERVAL_NS = 50_000_000;
    private static final int PING_BYTES = IPV6_HEADER + 8 + 56;
    /** {@code fe80::1}. */
    private static final byte[] LINK_LOCAL = {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    /** {@code ff02::2}, all routers. */
    private static final byte[] ALL_ROUTERS = {(byte) 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    private static final int SPORT = 40000;
    private static final int DPORT = 5201;
    private static final int WINDOW_FIELD = 0x1f00;
    /** Segments per write, cycled: mostly full 64 KiB super-segments, some short ones and single segments. */
    private static final int[] SEGMENTS = {44, 44, 8, 2, 44, 1, 16, 44, 44, 3};
    private static final ValueLayout.OfShort HOST_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    /**
     * What one run moved.
     *
     * @param writes       packets or super-segments the sending kernel wrote
     * @param bytesOffered TCP payload bytes in them
     * @param packetsIn    packets (super-segments counted once) the receiving kernel read
     * @param coalescedIn  of those, super-segments (the receiver's coalescer joined two or more segments)
     * @param bytesIn      TCP payload bytes read by the receiving kernel
     * @param acksIn       ACKs that came back out of the sender's device
     * @param echoRepliesIn echo replies that came back out of the sender's device (to its pings beside the stream)
     */
    public record Result(long writes, long bytesOffered, long packetsIn, long coalescedIn, long bytesIn,
                         long acksIn, long echoRepliesIn) {
    }

    private final TunStandIn sender;
    private final TunStandIn receiver;
    private final boolean vnet;
    private final int off;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment tx;
    private final MemorySegment rx;
    private final MemorySegment ack;
    private final MemorySegment syn;
    private final MemorySegment icmp;
    private final byte[] srcAddr;
    private final byte[] dstAddr;
    private final PollFds pfd;
    private final CallState cs;
    private int mss;
    private boolean established;
    private long lastSyn;
    private long lastPing;
    private int pings;
    private boolean synSent;
    private int seq = 1;
    private int tsval = 1;
    private int next;
    private long writes;
    private long bytesOffered;
    private long lostBytes;
    private long packetsIn;
    private long coalescedIn;
    private long bytesIn;
    private long acksIn;
    private long echoRepliesIn;

    private StandInTcpStream(final TunStandIn sender, final TunStandIn receiver) {
        this.sender = sender;
        this.receiver = receiver;
        this.vnet = sender.device().vnetHeader();
        if (receiver.device().vnetHeader() != vnet) {
            throw new IllegalArgumentException("both stand-ins need the same header mode");
        }
        this.off = vnet ? VNET : 0;
        this.tx = arena.allocate(VNET + IPV6_HEADER + 65535, 8);
        this.rx = arena.allocate(VNET + IPV6_HEADER + 65535, 8);
        this.ack = arena.allocate(VNET + HEADERS, 8);
        this.syn = arena.allocate(VNET + SYN_HEADERS, 8);
        this.icmp = arena.allocate(VNET + PING_BYTES, 8);
        this.pfd = new PollFds(arena, 2);
        this.cs = CallState.allocate(arena);
        this.srcAddr = sender.device().address().getAddress();
        this.dstAddr = receiver.device().address().getAddress();
        headers(tx, off, srcAddr, dstAddr, SPORT, DPORT);
        headers(ack, off, dstAddr, srcAddr, DPORT, SPORT);
        for (int i = 0; i < 65535 - HEADERS; i++) {
            tx.set(ValueLayout.JAVA_BYTE, off + HEADERS + i, (byte) (i * 31));
        }
    }

    /**
     * Prepares a stream from {@code sender}'s node to {@code receiver}'s (nothing is sent before {@link #run}).
     *
     * @param sender   the stand-in whose node sends the data (its address is the source)
     * @param receiver the stand-in whose node receives it (its address is the destination)
     */
    public static StandInTcpStream open(final TunStandIn sender, final TunStandIn receiver) {
        return new StandInTcpStream(sender, receiver);
    }

    /**
     * Runs the stream (its handshake first, when not done yet) for {@code durationNanos} of {@code clock}; a later
     * call goes on where this one stopped.
     *
     * @return what moved since {@link #open}
     */
    public Result run(final long durationNanos, final LongSupplier clock) {
        return loop(durationNanos, clock);
    }

    /**
     * Lone pings, the way a ping loop crosses a tunnel between bursts of traffic: one echo request at a time from
     * the sender's side, the next only once its reply came out of the sender's device (or {@value #STALL_MS} ms
     * passed), so both data planes wake from their polls for every packet and take the path of a lone small packet,
     * which a stream's pings every 50 ms never make hot enough for the JIT. ACKs of a stream still in flight are
     * answered meanwhile.
     *
     * @param count         how many echo requests to send
     * @param durationNanos the most time of {@code clock} to spend
     * @return the echo replies that came back during this call
     */
    public long lonePings(final int count, final long durationNanos, final LongSupplier clock) {
        final long start = clock.getAsLong();
        final long before = echoRepliesIn;
        final long stall = STALL_MS * 1_000_000L;
        long now = start;
        for (int i = 0; i < count && now - start < durationNanos; i++) {
            final long want = echoRepliesIn + 1;
            icmpv6(sender, srcAddr, dstAddr, ICMPV6_ECHO_REQUEST);
            pings++;
            final long sent = now;
            while (echoRepliesIn < want && now - sent < stall) {
                if (!drainBothEnds()) {
                    pfd.set(0, sender.kernelFd(), Linux.POLLIN);
                    pfd.set(1, receiver.kernelFd(), Linux.POLLIN);
                    pfd.poll(cs, 1);
                }
                now = clock.getAsLong();
            }
        }
        return echoRepliesIn - before;
    }

    /**
     * Reads up to 64 packets out of each kernel end: the receiver's (answered with ACKs, echo replies, a SYN-ACK),
     * then the sender's.
     *
     * @return whether either end had any
     */
    private boolean drainBothEnds() {
        boolean any = false;
        for (int i = 0; i < 64 && receive(); i++) {
            any = true;
        }
        for (int i = 0; i < 64 && senderReceive(); i++) {
            any = true;
        }
        return any;
    }

    /** Frees the buffers. */
    @Override
    public void close() {
        arena.close();
    }

    private Result loop(final long durationNanos, final LongSupplier clock) {
        final long start = clock.getAsLong();
        long lastDelivery = start;
        long now = start;
        while (now - start < durationNanos) {
            boolean progress = false;
            final long inFlight = bytesOffered - bytesIn - lostBytes;
            if (!established) {
                if (!synSent || now - lastSyn >= SYN_INTERVAL_NS) {
                    synSent = true;
                    lastSyn = now;
                    writeSyn(sender, srcAddr, dstAddr, SPORT, DPORT, TcpOffload.SYN, 1);
                }
            } else {
                if (now - lastPing >= PING_INTERVAL_NS) {
                    lastPing = now;
                    ping();
                }
                if (inFlight < WINDOW) {
                    progress = send();
                }
            }
            final long before = bytesIn;
            progress |= drainBothEnds();
            now = clock.getAsLong();
            if (bytesIn != before || !established) {
                lastDelivery = now;
            } else if (now - lastDelivery > STALL_MS * 1_000_000L) {
                lostBytes = bytesOffered - bytesIn;   // the window's bytes are gone: free it
                lastDelivery = now;
            }
            if (!progress) {
                pfd.set(0, sender.kernelFd(), (short) (Linux.POLLIN | Linux.POLLOUT));
                pfd.set(1, receiver.kernelFd(), Linux.POLLIN);
                pfd.poll(cs, 2);
                now = clock.getAsLong();
            }
        }
        return new Result(writes, bytesOffered, packetsIn, coalescedIn, bytesIn, acksIn, echoRepliesIn);
    }

    /** The fixed parts of an IPv6 + TCP header with the timestamp option at {@code seg[o]}. */
    private static void headers(final MemorySegment seg, final int o, final byte[] src, final byte[] dst,
                                final int sport, final int dport) {
        seg.fill((byte) 0);
        seg.set(BE_INT, o, 0x6001_2345);   // version 6, flow label
        seg.set(ValueLayout.JAVA_BYTE, o + 6, (byte) NH_TCP);
        seg.set(ValueLayout.JAVA_BYTE, o + 7, (byte) 64);
        MemorySegment.copy(src, 0, seg, ValueLayout.JAVA_BYTE, o + 8, 16);
        MemorySegment.copy(dst, 0, seg, ValueLayout.JAVA_BYTE, o + 24, 16);
        final int t = o + IPV6_HEADER;
        seg.set(BE_SHORT, t, (short) sport);
        seg.set(BE_SHORT, t + 2, (short) dport);
        seg.set(ValueLayout.JAVA_BYTE, t + TCP_DOFF, (byte) ((TCP_HEADER / 4) << 4));
        seg.set(BE_SHORT, t + TCP_WINDOW, (short) WINDOW_FIELD);
        seg.set(BE_INT, t + 20, 0x0101_080a);   // NOP, NOP, kind 8 length 10
    }

    /** Writes the next packet or super-segment into the sender's device; @return whether it went. */
    private boolean send() {
        final int segs = vnet ? Math.min(SEGMENTS[next % SEGMENTS.length], (65535 - HEADERS) / mss) : 1;
        final int payload = segs * mss;
        final int t = off + IPV6_HEADER;
        tx.set(BE_SHORT, off + 4, (short) (TCP_HEADER + payload));
        tx.set(BE_INT, t + TCP_SEQ, seq);
        tx.set(BE_INT, t + TCP_ACK, 1);
        tx.set(ValueLayout.JAVA_BYTE, t + TCP_FLAGS, (byte) (next % 4 == 3 ? ACK | PSH : ACK));
        tx.set(BE_INT, t + 24, tsval);
        tx.set(BE_INT, t + 28, 1);
        if (vnet) {
            // as the kernel hands over a TSO write: the checksum field holds the pseudo-header sum, to be completed
            tx.set(ValueLayout.JAVA_BYTE, TunIoctl.VNET_FLAGS_OFFSET, (byte) TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM);
            tx.set(ValueLayout.JAVA_BYTE, TunIoctl.VNET_GSO_TYPE_OFFSET,
                    (byte) (segs > 1 ? TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6 : TunIoctl.VIRTIO_NET_HDR_GSO_NONE));
            tx.set(HOST_SHORT, TunIoctl.VNET_HDR_LEN_OFFSET, (short) HEADERS);
            tx.set(HOST_SHORT, TunIoctl.VNET_GSO_SIZE_OFFSET, (short) (segs > 1 ? mss : 0));
            tx.set(HOST_SHORT, TunIoctl.VNET_CSUM_START_OFFSET, (short) IPV6_HEADER);
            tx.set(HOST_SHORT, TunIoctl.VNET_CSUM_OFFSET_OFFSET, (short) TCP_CHECKSUM);
            tx.set(BE_SHORT, t + TCP_CHECKSUM,
                    (short) InetChecksum.fold(TcpOffload.pseudoHeaderSum(tx, off, TCP_HEADER + payload)));
        } else {
            TcpOffload.setTcpChecksum(tx, off, HEADERS + payload);
        }
        if (sender.kernelWrite(tx, off + HEADERS + payload) <= 0) {
            return false;   // the device end's queue is full: its reader is behind
        }
        writes++;
        bytesOffered += payload;
        seq += payload;
        next++;
        if (next % 8 == 0) {
            tsval++;
        }
        return true;
    }

    /**
     * Reads one packet out of the sender's device: an ACK, the SYN-ACK (whose MSS option, clamped on the way,
     * sets the segment size), or an ICMPv6 Packet Too Big (which lowers it, as the kernel's path MTU does).
     *
     * @return whether there was one
     */
    private boolean senderReceive() {
        final long n = sender.kernelRead(rx, rx.byteSize());
        if (n <= off + IPV6_HEADER) {
            return n > 0;
        }
        final int len = (int) n - off;
        final int nh = Byte.toUnsignedInt(rx.get(ValueLayout.JAVA_BYTE, off + 6));
        if (nh == NH_ICMPV6 && len >= IPV6_HEADER + 8
                && Byte.toUnsignedInt(rx.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER)) == ICMPV6_PACKET_TOO_BIG) {
            final int mtu = rx.get(BE_INT, off + IPV6_HEADER + 4);
            if (mtu - HEADERS > 0 && mtu - HEADERS < mss) {
                mss = mtu - HEADERS;
            }
            return true;
        }
        if (nh == NH_ICMPV6 && len >= IPV6_HEADER + 8
                && Byte.toUnsignedInt(rx.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER)) == ICMPV6_ECHO_REPLY) {
            echoRepliesIn++;
            return true;
        }
        if (TcpOffload.tcpv6HeaderLength(rx, off, len) < 0) {
            return true;
        }
        final int flags = Byte.toUnsignedInt(rx.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER + TCP_FLAGS));
        if ((flags & TcpOffload.SYN) != 0) {
            if (!established && len >= SYN_HEADERS
                    && rx.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER + TcpOffload.TCP_MIN_HEADER) == 2) {
                // the peer's MSS as the path clamped it, less the timestamp option every segment carries
                mss = Short.toUnsignedInt(rx.get(BE_SHORT, off + IPV6_HEADER + TcpOffload.TCP_MIN_HEADER + 2))
                        - (TCP_HEADER - TcpOffload.TCP_MIN_HEADER);
                established = mss > 0;
            }
            return true;
        }
        acksIn++;
        return true;
    }

    /**
     * What the kernels send beside a stream (a daemon's path sees them between its TCP segments): a ping from the
     * sender's side, answered by the receiver's; each tenth time also a router solicitation to {@code ff02::2}, the
     * kind of link-local multicast Linux sends into a fresh {@code fips0}, which the data plane drops as not FIPS.
     */
    private void ping() {
        icmpv6(sender, srcAddr, dstAddr, ICMPV6_ECHO_REQUEST);
        if (pings++ % 10 == 0) {
            icmpv6(sender, LINK_LOCAL, ALL_ROUTERS, ICMPV6_ROUTER_SOLICITATION);
        }
    }

    /** Writes a {@value #PING_BYTES}-byte ICMPv6 message of {@code type} (plain packet, full checksum). */
    private void icmpv6(final TunStandIn into, final byte[] src, final byte[] dst, final int type) {
        icmp.fill((byte) 0);
        final int body = PING_BYTES - IPV6_HEADER;
        icmp.set(BE_INT, off, 0x6000_0000);
        icmp.set(BE_SHORT, off + 4, (short) body);
        icmp.set(ValueLayout.JAVA_BYTE, off + 6, (byte) NH_ICMPV6);
        icmp.set(ValueLayout.JAVA_BYTE, off + 7, (byte) (type == ICMPV6_ROUTER_SOLICITATION ? 255 : 64));
        MemorySegment.copy(src, 0, icmp, ValueLayout.JAVA_BYTE, off + 8, 16);
        MemorySegment.copy(dst, 0, icmp, ValueLayout.JAVA_BYTE, off + 24, 16);
        final int m = off + IPV6_HEADER;
        icmp.set(ValueLayout.JAVA_BYTE, m, (byte) type);
        icmp.set(BE_INT, m + 4, 0x0001_0000 | (pings & 0xFFFF));   // identifier 1, sequence
        final long sum = InetChecksum.add(icmp, off + 8, 32, 0) + body + NH_ICMPV6;
        icmp.set(BE_SHORT, m + 2, (short) InetChecksum.finish(InetChecksum.add(icmp, m, body, sum)));
        into.kernelWrite(icmp, off + PING_BYTES);   // EAGAIN: this one is lost, the next comes 50 ms later
    }

    /** Writes a SYN or SYN-ACK with the MSS option of the device's MTU (a plain packet, full checksum). */
    private void writeSyn(final TunStandIn into, final byte[] src, final byte[] dst, final int sport,
                          final int dport, final int flags, final int ackNumber) {
        syn.fill((byte) 0);
        final int t = off + IPV6_HEADER;
        syn.set(BE_INT, off, 0x6001_2345);
        syn.set(BE_SHORT, off + 4, (short) (SYN_HEADERS - IPV6_HEADER));
        syn.set(ValueLayout.JAVA_BYTE, off + 6, (byte) NH_TCP);
        syn.set(ValueLayout.JAVA_BYTE, off + 7, (byte) 64);
        MemorySegment.copy(src, 0, syn, ValueLayout.JAVA_BYTE, off + 8, 16);
        MemorySegment.copy(dst, 0, syn, ValueLayout.JAVA_BYTE, off + 24, 16);
        syn.set(BE_SHORT, t, (short) sport);
        syn.set(BE_SHORT, t + 2, (short) dport);
        syn.set(BE_INT, t + TCP_SEQ, 0);
        syn.set(BE_INT, t + TCP_ACK, ackNumber);
        syn.set(ValueLayout.JAVA_BYTE, t + TCP_DOFF, (byte) (6 << 4));
        syn.set(ValueLayout.JAVA_BYTE, t + TCP_FLAGS, (byte) flags);
        syn.set(BE_SHORT, t + TCP_WINDOW, (short) WINDOW_FIELD);
        syn.set(BE_INT, t + TcpOffload.TCP_MIN_HEADER, 0x0204_0000 | (into.device().mtu() - IPV6_HEADER - 20));
        TcpOffload.setTcpChecksum(syn, off, SYN_HEADERS);
        into.kernelWrite(syn, off + SYN_HEADERS);   // EAGAIN: sent again after the interval
    }

    /** Reads one packet out of the receiver's device and answers it with an ACK; @return whether there was one. */
    private boolean receive() {
        final long n = receiver.kernelRead(rx, rx.byteSize());
        if (n <= off + IPV6_HEADER) {
            return n > 0;   // nothing, or too short to be ours (not counted)
        }
        final int len = (int) n - off;
        final int h = TcpOffload.tcpv6HeaderLength(rx, off, len);
        if (h < 0) {
            if (Byte.toUnsignedInt(rx.get(ValueLayout.JAVA_BYTE, off + 6)) == NH_ICMPV6 && len == PING_BYTES
                    && Byte.toUnsignedInt(rx.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER)) == ICMPV6_ECHO_REQUEST) {
                icmpv6(receiver, dstAddr, srcAddr, ICMPV6_ECHO_REPLY);
            }
            return true;
        }
        final int payload = len - h;
        final int flags = Byte.toUnsignedInt(rx.get(ValueLayout.JAVA_BYTE, off + IPV6_HEADER + TCP_FLAGS));
        if ((flags & TcpOffload.SYN) != 0) {
            writeSyn(receiver, dstAddr, srcAddr, DPORT, SPORT, TcpOffload.SYN | ACK,
                    rx.get(BE_INT, off + IPV6_HEADER + TCP_SEQ) + 1);
            return true;
        }
        packetsIn++;
        bytesIn += payload;
        if (vnet && rx.get(ValueLayout.JAVA_BYTE, TunIoctl.VNET_GSO_TYPE_OFFSET) != 0) {
            coalescedIn++;
        }
        if (payload > 0) {
            final int t = off + IPV6_HEADER;
            ack.set(BE_INT, t + TCP_SEQ, 1);
            ack.set(BE_INT, t + TCP_ACK, rx.get(BE_INT, off + IPV6_HEADER + TCP_SEQ) + payload);
            ack.set(ValueLayout.JAVA_BYTE, t + TCP_FLAGS, (byte) ACK);
            ack.set(BE_INT, t + 24, tsval);
            ack.set(BE_INT, t + 28, rx.get(BE_INT, off + IPV6_HEADER + 24));
            ack.set(BE_SHORT, off + 4, (short) TCP_HEADER);
            TcpOffload.setTcpChecksum(ack, off, HEADERS);
            receiver.kernelWrite(ack, off + HEADERS);   // EAGAIN: this ACK is lost, the next one covers it
        }
        return true;
    }
}
