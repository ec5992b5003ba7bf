package net.fips.control.link;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.JdkAeadCipher;
import net.fips.dataplane.crypto.ReplayWindow;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;
import net.fips.dataplane.wire.FmpPrefix;
import net.fips.dataplane.wire.WireResult;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Two in-memory data planes wired back to back, one per {@link LinkConductor}, driven by a manual clock. Handshake
 * packets are carried as they are; link messages are really sealed and opened with {@link JdkAeadCipher}, the FMP
 * header codecs and one {@link ReplayWindow} per session, with current / pending / previous sessions per link and
 * the K-bit trial rule (crypto-link §5.4, §5.11), so rekeys are exercised for real. Packets to addresses that are not
 * one of the two sides (answers to a flood) vanish.
 */
final class PairedDataPlanes {
    static final int TRANSPORT = 1;
    static final long MS = 1_000_000L;
    static final long SECOND = 1_000_000_000L;
    /** Reference: 20 consecutive authentication failures remove the peer. */
    static final int DECRYPT_FAILURE_LIMIT = 20;

    /** A packet in flight, delivered once the clock reaches {@code dueNanos} (0: at once). */
    record Packet(TransportAddr from, TransportAddr to, byte[] bytes, long dueNanos) {
        Packet(final TransportAddr from, final TransportAddr to, final byte[] bytes) {
            this(from, to, bytes, 0L);
        }

        int phase() {
            return bytes.length == 0 ? -1 : bytes[0] & 0x0F;
        }
    }

    long now = 1_000 * SECOND;
    final ArrayDeque<Packet> wire = new ArrayDeque<>();
    final Map<TransportAddr, Side> sides = new HashMap<>();

    /** @return the UDP text address {@code host:port} */
    static TransportAddr inet(final String host, final int port) {
        return TransportAddr.ofText(host + ":" + port);
    }
    /** Packets for which this returns true are lost. */
    Predicate<Packet> loss = p -> false;
    long lostPackets;
    long packetsToNowhere;
    /** One-way delay of every packet (0: delivered by the next {@link #deliverAll}). */
    long latencyNanos;
    /**
     * Simulated handshake processing: the clock moves on by this much between the conductor's promotion and the
     * data plane creating the link, as when the Noise work and the command queue take real time.
     */
    long addLinkDelayNanos;
    /** Simulated event-queue delay: the clock moves on by this much before a {@code CutOver} event is handled. */
    long cutoverEventDelayNanos;

    /**
     * Stream mode (TCP-like; default off, i.e. datagrams): a send to a side's own address travels on the
     * connection from the sender to that listener, made on first use, which the listener sees coming from an
     * ephemeral address of the sender's host ({@code 10.0.0.x:4000n}); the listener's sends to that ephemeral
     * address go back on the same connection and reach the dialer as from the listener's address. A side's
     * {@code closeConnection} ends a connection for both ends: later sends on it are dropped and counted.
     */
    boolean streams;
    /** (dialer address, listener address) of each connection, by the ephemeral address the listener sees. */
    private final Map<TransportAddr, List<TransportAddr>> byEphemeral = new HashMap<>();
    private final Map<List<TransportAddr>, TransportAddr> ephemeralOf = new HashMap<>();
    /** Connections (dialer, listener) closed by either end. */
    final Set<List<TransportAddr>> closedConnections = new HashSet<>();
    /** Packets sent on a closed connection. */
    long sentOnClosed;

    /** Puts a packet on the wire, through its connection in stream mode. */
    private void transmit(final TransportAddr from, final TransportAddr to, final byte[] bytes) {
        if (!streams) {
            wire.add(new Packet(from, to, bytes, now + latencyNanos));
            return;
        }
        final List<TransportAddr> back = byEphemeral.get(to);
        final List<TransportAddr> conn = back != null ? back : List.of(from, to);
        if (closedConnections.contains(conn)) {
            sentOnClosed++;
            return;
        }
        if (back != null) {
            // the listener answers on the accepted connection: the dialer sees the listener's address
            wire.add(new Packet(back.get(1), back.get(0), bytes, now + latencyNanos));
            return;
        }
        final TransportAddr eph = ephemeralOf.computeIfAbsent(conn, k -> {
            final String host = from.text().substring(0, from.text().lastIndexOf(':'));
            final TransportAddr e = inet(host, 40_000 + byEphemeral.size());
            byEphemeral.put(e, k);
            return e;
        });
        wire.add(new Packet(eph, to, bytes, now + latencyNanos));
    }

    /** The packet's destination side, through an ephemeral address in stream mode. */
    private Side destination(final TransportAddr to) {
        final List<TransportAddr> conn = streams ? byEphemeral.get(to) : null;
        return sides.get(conn != null ? conn.get(0) : to);
    }

    /** The connection {@code side} knows as {@code address}: its dial to a listener, or one it accepted. */
    List<TransportAddr> connection(final Side side, final TransportAddr address) {
        final List<TransportAddr> accepted = byEphemeral.get(address);
        return accepted != null ? accepted : List.of(side.address, address);
    }

    Side newSide(final String name, final int port) {
        final Side s = new Side(name, inet("10.0.0." + (sides.size() + 1), port));
        sides.put(s.address, s);
        return s;
    }

    /** Moves the clock, runs both agents' duty cycles, then delivers everything in flight. */
    void advance(final long nanos) {
        now += nanos;
        for (final Side s : List.copyOf(sides.values())) {
            if (s.conductor != null) {
                s.conductor.doWork(now);
            }
        }
        deliverAll();
    }

    /** Advances in steps of {@code stepMs} for {@code totalMs}. */
    void run(final long totalMs, final long stepMs) {
        for (long t = 0; t < totalMs; t += stepMs) {
            advance(stepMs * MS);
        }
    }

    /** Delivers every packet that is due (all of them when there is no latency), in order. */
    void deliverAll() {
        int guard = 0;
        while (!wire.isEmpty() && wire.peek().dueNanos() - now <= 0) {
            if (++guard > 10_000_000) {
                throw new IllegalStateException("packet storm");
            }
            final Packet p = wire.poll();
            if (loss.test(p)) {
                lostPackets++;
                continue;
            }
            final Side dest = destination(p.to());
            if (dest == null) {
                packetsToNowhere++;
                continue;
            }
            dest.receive(p);
        }
    }

    /** One node's data plane. */
    final class Side implements DataPlaneCommands {

        // The link-layer tests drive no sessions: these commands are not part of this fake.
        @Override
        public void addSession(final SessionSpec spec) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void installSessionPending(final NodeAddr r, final byte[] s, final byte[] v) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void cutoverSession(final NodeAddr r, final long start) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void dropSessionPrevious(final NodeAddr r) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void removeSession(final NodeAddr r) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void setSessionWarmup(final NodeAddr r, final int n) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void lowerSessionPathMtu(final NodeAddr r, final int mtu) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void sendSessionMessage(final NodeAddr r, final int t, final byte[] b,
                                       final boolean cp) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void sendIpv6(final byte[] packet) {
            throw new UnsupportedOperationException("sessions");
        }

        @Override
        public void writeIpv6(final byte[] packet) {
            throw new UnsupportedOperationException("sessions");
        }
        final String name;
        final TransportAddr address;
        final Map<Long, FakeLink> links = new HashMap<>();
        final Map<Integer, FakeLink> byIndex = new HashMap<>();
        final AeadCipher cipher = new JdkAeadCipher();
        final MemorySegment nonce = MemorySegment.ofArray(new byte[AeadCipher.NONCE_BYTES]);
        final List<DataPlaneEvent> events = new ArrayList<>();
        /** SessionDatagram link messages (type 0x00) delivered, in order, per link. */
        final List<byte[]> datagrams = new ArrayList<>();
        /** Every established frame that arrived here, before opening, for replay tests. */
        final List<Packet> framesIn = new ArrayList<>();
        /** Every link message sent from here (plaintext), for inspection. */
        final List<byte[]> sentMessages = new ArrayList<>();
        LinkConductor conductor;
        long authFailures;
        long replays;
        long unknownIndex;
        long sendToMissingLink;
        long trialCutovers;

        Side(final String name, final TransportAddr address) {
            this.name = name;
            this.address = address;
        }

        LinkStats stats(final long linkId) {
            return links.get(linkId);
        }

        FakeLink onlyLink() {
            if (links.size() != 1) {
                throw new IllegalStateException(name + " has " + links.size() + " links");
            }
            return links.values().iterator().next();
        }

        /** Sends an application datagram-like link message (type 0x00) carrying {@code seq}. */
        void sendData(final long linkId, final long seq) {
            final byte[] m = new byte[9];
            m[0] = 0x00;
            MemorySegment.ofArray(m).set(ValueLayout.JAVA_LONG_UNALIGNED, 1, seq);
            sendLinkMessage(linkId, m);
        }

        // ---- commands ----

        @Override
        public void addLink(final LinkSpec spec) {
            now += addLinkDelayNanos;
            final FakeLink l = new FakeLink(spec, now);
            links.put(spec.linkId(), l);
            byIndex.put(spec.ourIndex(), l);
        }

        @Override
        public void installPending(final long linkId, final int ourIndex, final int theirIndex, final byte[] sendKey,
                                   final byte[] recvKey) {
            final FakeLink l = links.get(linkId);
            if (l == null) {
                return;
            }
            if (l.pending != null) {
                byIndex.remove(l.pending.ourIndex);
            }
            l.pending = new FakeLink.KeyEpoch(ourIndex, theirIndex, sendKey, recvKey);
            byIndex.put(ourIndex, l);
        }

        @Override
        public void cutover(final long linkId, final long sessionStartNanos) {
            final FakeLink l = links.get(linkId);
            if (l != null) {
                doCutover(l, sessionStartNanos);
            }
        }

        private void doCutover(final FakeLink l, final long sessionStartNanos) {
            if (l.pending == null) {
                return;
            }
            if (l.previous != null) {
                byIndex.remove(l.previous.ourIndex);
            }
            l.previous = l.current;
            l.current = l.pending;
            l.pending = null;
            l.k ^= 1;
            l.keyEpochStart = sessionStartNanos;
            l.mmp.resetForRekey(sessionStartNanos);
        }

        /** The congestion flags the control plane set, by link id (this fake forwards nothing). */
        final Map<Long, Boolean> congested = new HashMap<>();

        @Override
        public void setLinkCongested(final long linkId, final boolean value) {
            congested.put(linkId, value);
        }

        @Override
        public void dropPrevious(final long linkId) {
            final FakeLink l = links.get(linkId);
            if (l != null && l.previous != null) {
                byIndex.remove(l.previous.ourIndex);
                l.previous = null;
            }
        }

        @Override
        public void removeLink(final long linkId) {
            final FakeLink l = links.remove(linkId);
            if (l == null) {
                return;
            }
            for (final FakeLink.KeyEpoch s : new FakeLink.KeyEpoch[] {l.current, l.pending, l.previous}) {
                if (s != null && byIndex.get(s.ourIndex) == l) {
                    byIndex.remove(s.ourIndex);
                }
            }
        }

        @Override
        public void sendLinkMessage(final long linkId, final byte[] message) {
            final FakeLink l = links.get(linkId);
            if (l == null) {
                sendToMissingLink++;
                return;
            }
            sentMessages.add(message.clone());
            final FakeLink.KeyEpoch s = l.current;
            final long counter = s.sendCounter++;
            final byte[] plain = FmpInnerHeader.prepend((now - l.keyEpochStart) / MS, message);
            final byte[] frame = new byte[FmpEstablishedHeader.SIZE + plain.length + AeadCipher.TAG_BYTES];
            final MemorySegment seg = MemorySegment.ofArray(frame);
            FmpEstablishedHeader.write(seg, 0, l.k == 1 ? FmpEstablishedHeader.FLAG_KEY_EPOCH : 0, plain.length,
                    s.theirIndex, counter);
            System.arraycopy(plain, 0, frame, FmpEstablishedHeader.SIZE, plain.length);
            AeadCipher.fipsNonce(nonce, counter);
            cipher.seal(s.sendKey, nonce, seg, 0, FmpEstablishedHeader.SIZE, seg, FmpEstablishedHeader.SIZE,
                    plain.length);
            l.packetsOut++;
            l.bytesOut += frame.length;
            transmit(address, l.remote, frame);
        }

        /**
         * msg2s this side sent while the index they offer (their sender_idx, the index the initiator's first frame
         * is addressed to) was not yet installed: a real data plane would drop that frame as unknown.
         */
        long msg2BeforeIndex;

        /** Connections this side closed ({@code setConnectionCloser}), as {@link #connection} names them. */
        final List<List<TransportAddr>> closed = new ArrayList<>();

        void closeConnection(final TransportAddr addr) {
            final List<TransportAddr> conn = connection(this, addr);
            closed.add(conn);
            closedConnections.add(conn);
        }

        @Override
        public void sendHandshake(final int transportId, final TransportAddr to, final byte[] packet) {
            if (packet.length > 0 && (packet[0] & 0x0F) == FmpPrefix.PHASE_MSG2
                    && FmpMsg2.decode(packet, 0, packet.length)
                            instanceof WireResult.Ok<FmpMsg2>(final var m2)
                    && !byIndex.containsKey(m2.senderIdx())) {
                msg2BeforeIndex++;
            }
            transmit(address, to, packet.clone());
        }

        @Override
        public void setForwardingTable(final ForwardingTable table) {
            // no transit routing in this double
        }

        // ---- receive path ----

        void receive(final Packet p) {
            final byte[] b = p.bytes();
            if (b.length < FmpPrefix.SIZE || (b[0] & 0xF0) != 0) {
                return;
            }
            final int phase = b[0] & 0x0F;
            if (phase == FmpPrefix.PHASE_MSG1 || phase == FmpPrefix.PHASE_MSG2) {
                events.add(new DataPlaneEvent.HandshakeReceived(TRANSPORT, p.from(), b.clone()));
            } else if (phase == FmpPrefix.PHASE_ESTABLISHED) {
                framesIn.add(p);
                receiveFrame(p);
            }
            drainEvents();
        }

        void drainEvents() {
            while (!events.isEmpty()) {
                final DataPlaneEvent e = events.removeFirst();
                if (e instanceof DataPlaneEvent.CutOver) {
                    now += cutoverEventDelayNanos;
                }
                if (conductor != null) {
                    conductor.onEvent(e, now);
                }
            }
        }

        private void receiveFrame(final Packet p) {
            final FmpEstablishedHeader h = new FmpEstablishedHeader();
            final WireResult<FmpEstablishedHeader> r = h.wrap(p.bytes(), 0, p.bytes().length);
            if (!r.isOk() || p.bytes().length < FmpEstablishedHeader.MIN_FRAME_SIZE) {
                return;
            }
            final FakeLink l = byIndex.get(h.receiverIdx());
            if (l == null) {
                unknownIndex++;
                return;
            }
            final long counter = h.counter();
            final int frameK = h.keyEpoch() ? 1 : 0;
            final FakeLink.KeyEpoch addressed = sessionFor(l, h.receiverIdx());
            if (l.pending != null && (frameK != l.k || addressed == l.pending)) {
                final byte[] plain = open(l.pending, p.bytes(), counter);
                if (plain != null) {
                    doCutover(l, now);
                    trialCutovers++;
                    events.add(new DataPlaneEvent.CutOver(l.linkId, l.current.ourIndex, now));
                    accepted(l, p, plain, counter, h.flags());
                    return;
                }
                if (addressed == l.pending) {
                    failed(l);
                    return;
                }
            }
            if (addressed == null) {
                unknownIndex++;
                return;
            }
            if (!addressed.window.check(counter)) {
                replays++;
                l.dropsIn++;
                l.replayDrops++;
                return;
            }
            final byte[] plain = open(addressed, p.bytes(), counter);
            if (plain == null) {
                failed(l);
                return;
            }
            accepted(l, p, plain, addressed == l.current ? counter : -1, h.flags());
        }

        private FakeLink.KeyEpoch sessionFor(final FakeLink l, final int index) {
            for (final FakeLink.KeyEpoch s : new FakeLink.KeyEpoch[] {l.current, l.pending, l.previous}) {
                if (s != null && s.ourIndex == index) {
                    return s;
                }
            }
            return null;
        }

        /** check, open, accept: the window only moves for a frame that authenticated. */
        private byte[] open(final FakeLink.KeyEpoch s, final byte[] frame, final long counter) {
            if (!s.window.check(counter)) {
                return null;
            }
            final byte[] copy = frame.clone();
            final MemorySegment seg = MemorySegment.ofArray(copy);
            AeadCipher.fipsNonce(nonce, counter);
            final int n = cipher.open(s.recvKey, nonce, seg, 0, FmpEstablishedHeader.SIZE, seg,
                    FmpEstablishedHeader.SIZE, copy.length - FmpEstablishedHeader.SIZE);
            if (n == AeadCipher.AUTH_FAILED || n < FmpInnerHeader.SIZE) {
                return null;
            }
            s.window.accept(counter);
            final byte[] plain = new byte[n];
            System.arraycopy(copy, FmpEstablishedHeader.SIZE, plain, 0, n);
            return plain;
        }

        private void failed(final FakeLink l) {
            authFailures++;
            l.dropsIn++;
            if (++l.consecutiveFailures == DECRYPT_FAILURE_LIMIT) {
                events.add(new DataPlaneEvent.TooManyDecryptFailures(l.linkId));
            }
        }

        /** @param counter the frame's counter when it is the current session's (fed to the MMP receiver), else -1 */
        private void accepted(final FakeLink l, final Packet p, final byte[] plain, final long counter,
                              final int fmpFlags) {
            l.consecutiveFailures = 0;
            l.packetsIn++;
            l.bytesIn += p.bytes().length;
            l.lastAuth = now;
            if (!p.from().equals(l.remote)) {
                l.remote = p.from();
                events.add(new DataPlaneEvent.AddressChanged(l.linkId, p.from()));
            }
            final FmpInnerHeader inner = new FmpInnerHeader();
            inner.wrap(plain, 0, plain.length);
            if (counter >= 0) {
                l.mmp.onFrame(counter, inner.timestamp() & 0xFFFF_FFFFL,
                        (fmpFlags & FmpEstablishedHeader.FLAG_CE) != 0, now);
            }
            final byte[] msg = new byte[plain.length - FmpInnerHeader.MSG_TYPE_OFFSET];
            System.arraycopy(plain, FmpInnerHeader.MSG_TYPE_OFFSET, msg, 0, msg.length);
            if (msg[0] == 0x00) {
                datagrams.add(msg);
            } else {
                events.add(new DataPlaneEvent.LinkMessageReceived(l.linkId, inner.timestamp(), msg));
            }
        }
    }
}
