package net.fips.control.session;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.mesh.MeshControl;
import net.fips.control.noise.EphemeralSource;
import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.SessionStats;
import net.fips.dataplane.ipv6.Icmpv6Errors;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.SessionMessageType;
import net.fips.control.discovery.Discovery;
import net.fips.control.discovery.DiscoveryListener;
import net.fips.control.identity.FipsAddress;
import net.fips.control.mmp.PeerReport;
import net.fips.control.mmp.ReceiverFigures;
import net.fips.dataplane.wire.MmpReceiverReport;
import net.fips.dataplane.wire.MmpSenderReport;

/**
 * The node's session layer: {@link Sessions} (the FSP handshake state machine) joined to the routing layers
 * ({@link MeshControl}: coordinates, next hop, discovery, identity cache) and to the data plane, which seals and
 * opens the DataPackets of established sessions itself. Control thread only.
 *
 * <ul>
 * <li>data plane to here: IPv6 packets without a session ({@link DataPlaneEvent.OutboundWithoutSession}: queued
 * behind a handshake, or answered with ICMPv6 Destination Unreachable when the destination's identity is unknown),
 * handshake messages and error signals, decrypted control messages, key confirmations, no-route reports;</li>
 * <li>here to the data plane: the keys of every established or rekeyed generation, cutovers, warm-up coordinates,
 * queued packets once the session is up, path MTU decreases, CoordsWarmup requests, ICMPv6 errors;</li>
 * <li>{@link #tick}: DataPacket activity and send counters from {@link SessionStats} (idle timeout, rekey by
 * message count), then the state machine's timers.</li>
 * </ul>
 */
public final class SessionLayer implements SessionListener, SessionHost {
    private static final System.Logger LOG = System.getLogger(SessionLayer.class.getName());
    private static final int SENDER_REPORT = MmpSenderReport.SESSION_MSG_TYPE;
    private static final int RECEIVER_REPORT = MmpReceiverReport.SESSION_MSG_TYPE;

    private final Sessions sessions;
    private final MeshControl mesh;
    private final DataPlaneCommands dataPlane;
    private final Function<NodeAddr, SessionStats> stats;
    private final SessionConfig config;
    private final NodeAddr self;
    private final long selfFipsHi;
    private final long selfFipsLo;
    private final boolean ipv6Side;
    private final Map<NodeAddr, SessionMmp> mmp = new HashMap<>();
    private String mmpMode = "full";
    private long now;
    private long icmpSent;
    /** The destination whose lookup just failed at once (set inside {@link #onLookupNeeded}). */
    private NodeAddr lookupFailed;

    /**
     * @param config     session settings
     * @param identity   our identity (the XK static)
     * @param epoch      our startup epoch
     * @param mesh       the routing layers
     * @param dataPlane  the data plane's commands
     * @param stats      the data plane's live session figures ({@code DataPlane::sessionStats})
     * @param ipv6Side   whether an IPv6 side (TUN) exists to send ICMPv6 errors to
     * @param random     rekey jitter
     * @param nowNanos   the control clock
     */
    public SessionLayer(final SessionConfig config, final NodeIdentity identity, final byte[] epoch,
                        final MeshControl mesh, final DataPlaneCommands dataPlane,
                        final Function<NodeAddr, SessionStats> stats, final boolean ipv6Side, final Random random,
                        final long nowNanos) {
        this.config = config;
        this.mesh = mesh;
        this.dataPlane = dataPlane;
        this.stats = stats;
        this.ipv6Side = ipv6Side;
        this.self = identity.nodeAddr();
        this.selfFipsHi = Ipv6Packet.fipsAddressHi(self.hi());
        this.selfFipsLo = Ipv6Packet.fipsAddressLo(self.hi(), self.lo());
        this.now = nowNanos;
        this.sessions = new Sessions(config, identity, epoch, this, mesh.identityCache(), this,
                EphemeralSource.secureRandom(), random);
        mesh.setDiscoveryListener(new DiscoveryListener() {
            @Override
            public void onRouteFound(final NodeAddr target, final Coords coords, final int pathMtu, final long at) {
                sessions.onRouteFound(target, at);
            }

            @Override
            public void onUnreachable(final NodeAddr target, final long at) {
                for (final byte[] packet : sessions.onUnreachable(target, at)) {
                    unreachable(packet);
                }
            }
        });
    }

    /**
     * @param mode the session MMP mode ({@code node.session_mmp.mode}): {@code full} sends Sender and Receiver
     *             reports, {@code lightweight} Receiver reports only, {@code minimal} none
     */
    public void setMmpMode(final String mode) {
        this.mmpMode = Objects.requireNonNull(mode, "mode");
    }

    /** @return the session's MMP instance, or null (control thread) */
    public SessionMmp mmp(final NodeAddr remote) {
        return mmp.get(remote);
    }

    /** @return the state machine (show_sessions, tests) */
    public Sessions sessions() {
        return sessions;
    }

    /** @return ICMPv6 Destination Unreachable errors sent to the IPv6 side */
    public long icmpSent() {
        return icmpSent;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Events from the data plane

    /**
     * Handles a session event of the data plane.
     *
     * @return false when {@code event} is not a session event (the caller handles it)
     */
    public boolean onEvent(final DataPlaneEvent event, final long nowNanos) {
        now = nowNanos;
        switch (event) {
            case DataPlaneEvent.OutboundWithoutSession(final byte[] packet) -> onOutbound(packet);
            case DataPlaneEvent.SessionMessageReceived(final NodeAddr src, final byte[] fsp) ->
                    sessions.onFspMessage(src, fsp, now);
            case DataPlaneEvent.SessionInnerReceived(final NodeAddr src, final byte[] plaintext) ->
                    onInner(src, plaintext);
            case DataPlaneEvent.SessionKeysAuthenticated(final NodeAddr remote, final boolean cutOver,
                                                         final long start) ->
                    sessions.onPendingKeysAuthenticated(remote, now);
            case DataPlaneEvent.SessionPreviousKeysUsed(final NodeAddr remote) ->
                    sessions.onPreviousKeysUsed(remote, now);
            case DataPlaneEvent.SessionNoRoute(final NodeAddr remote) -> onLookupNeeded(remote, now);
            default -> {
                return false;
            }
        }
        return true;
    }

    private void onInner(final NodeAddr src, final byte[] plaintext) {
        final int type = plaintext.length > 4 ? plaintext[4] & 0xFF : -1;
        if (type == RECEIVER_REPORT) {
            final SessionMmp m = mmp.get(src);
            final SessionStats st = stats.apply(src);
            if (m != null && st != null) {
                m.onReceiverReport(plaintext, 6, plaintext.length - 6, st, now);
            }
            return;
        }
        if (type == SENDER_REPORT) {
            return;   // the peer's sender view; our receiver state is the data plane's
        }
        sessions.onInnerMessage(src, plaintext, now);
    }

    private void onOutbound(final byte[] packet) {
        final MemorySegment seg = MemorySegment.ofArray(packet);
        if (Ipv6Packet.checkHeader(seg, 0, packet.length) != Ipv6Packet.OK) {
            return;   // not reached: the data plane passes on only packets whose header it checked
        }
        final IdentityCache.Entry id = lookupByAddress(packet);
        if (id == null) {
            unreachable(packet);
            return;
        }
        final NodeAddr dest = id.nodeAddr();
        lookupFailed = null;
        switch (sessions.send(dest, packet, now)) {
            case ESTABLISHED -> dataPlane.sendIpv6(packet);
            case NO_IDENTITY -> unreachable(packet);
            case DROPPED -> {
                // counted by Sessions (the queue table is full)
            }
            case LOOKUP_REQUESTED -> {
                if (dest.equals(lookupFailed)) {
                    for (final byte[] p : sessions.onUnreachable(dest, now)) {
                        unreachable(p);
                    }
                }
            }
            case QUEUED, INITIATED -> {
            }
        }
        lookupFailed = null;
    }

    private IdentityCache.Entry lookupByAddress(final byte[] packet) {
        final byte[] dst = new byte[16];
        System.arraycopy(packet, Ipv6Packet.DST_OFFSET, dst, 0, 16);
        try {
            return mesh.identityCache().lookup(FipsAddress.of(dst), now);
        } catch (final IdentityFormatException e) {
            return null;
        }
    }

    /** Answers {@code packet} with ICMPv6 Destination Unreachable (code 0) from our address, as the reference. */
    private void unreachable(final byte[] packet) {
        final MemorySegment orig = MemorySegment.ofArray(packet);
        if (!ipv6Side || !Icmpv6Errors.shouldSendError(orig, 0, packet.length)) {
            return;
        }
        final byte[] out = new byte[Icmpv6Errors.errorLength(packet.length)];
        final int n = Icmpv6Errors.destinationUnreachable(orig, 0, packet.length, Icmpv6Errors.CODE_NO_ROUTE,
                selfFipsHi, selfFipsLo, MemorySegment.ofArray(out), 0);
        if (n > 0) {
            icmpSent++;
            dataPlane.writeIpv6(out);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Timers

    /** Feeds DataPacket activity and send counters to the state machine, then runs its timers (about 1/s). */
    public void tick(final long nowNanos) {
        now = nowNanos;
        for (final NodeAddr remote : sessions.remotes()) {
            final SessionStats s = stats.apply(remote);
            if (s != null && sessions.state(remote) == SessionState.ESTABLISHED) {
                sessions.noteDataActivity(remote, Math.min(s.lastDataNanos(), nowNanos));
                sessions.noteSendCounter(remote, s.sendCounter());
                sendReports(remote, s, nowNanos);
            }
        }
        sessions.tick(nowNanos);
    }

    /** MMP reports (routing-session §6.4), from the 1 s tick: only when there is something new to report. */
    private void sendReports(final NodeAddr remote, final SessionStats s, final long nowNanos) {
        final SessionMmp m = mmp.get(remote);
        if (m == null || "minimal".equals(mmpMode)) {
            return;
        }
        final byte[] rr = m.receiverReport(s, nowNanos);
        if (rr != null) {
            dataPlane.sendSessionMessage(remote, RECEIVER_REPORT, rr, false);
        }
        if ("full".equals(mmpMode)) {
            final byte[] sr = m.senderReport(s, nowNanos);
            if (sr != null) {
                dataPlane.sendSessionMessage(remote, SENDER_REPORT, sr, false);
            }
        }
    }

    /** A direct peer went away or restarted: its session goes too (routing-session §5.2). */
    public void onPeerRemoved(final NodeAddr peer, final long nowNanos) {
        now = nowNanos;
        sessions.remove(peer, nowNanos);
    }

    // ------------------------------------------------------------------------------------------------------------
    // SessionHost

    @Override
    public NodeAddr self() {
        return self;
    }

    @Override
    public Coords selfCoords() {
        return mesh.coords();
    }

    @Override
    public Coords coordsOf(final NodeAddr dest) {
        return mesh.cachedCoords(dest, now);
    }

    @Override
    public boolean route(final SessionDatagram datagram) {
        return mesh.routeOriginated(datagram, now);
    }

    @Override
    public void cacheCoords(final NodeAddr addr, final Coords coords) {
        if (coords != null && !coords.isEmpty()) {
            mesh.warm(addr, coords, now);
        }
    }

    @Override
    public void forgetCoords(final NodeAddr dest) {
        mesh.forgetCoords(dest, now);
    }

    // ------------------------------------------------------------------------------------------------------------
    // SessionListener: effects into the data plane

    @Override
    public void onEstablished(final SessionKeys keys, final long nowNanos) {
        dataPlane.addSession(new SessionSpec(keys.remote(), keys.sendKey(), keys.recvKey(), keys.keyEpoch(),
                nowNanos, config.datagramTtl()));
        Arrays.fill(keys.sendKey(), (byte) 0);
        Arrays.fill(keys.recvKey(), (byte) 0);
        onWarmupReset(keys.remote(), config.warmupPackets(), nowNanos);
        mmp.put(keys.remote(), new SessionMmp());
        LOG.log(Level.INFO, "session up: {0} ({1})", keys.remote().shortHex(),
                keys.initiator() ? "we initiated" : "they initiated");
    }

    @Override
    public void onRekeyPending(final SessionKeys keys, final long nowNanos) {
        dataPlane.installSessionPending(keys.remote(), keys.sendKey(), keys.recvKey());
        Arrays.fill(keys.sendKey(), (byte) 0);
        Arrays.fill(keys.recvKey(), (byte) 0);
    }

    @Override
    public void onRekeyCutover(final NodeAddr remote, final long nowNanos) {
        dataPlane.cutoverSession(remote, nowNanos);
        LOG.log(Level.DEBUG, "session rekey: {0} on new keys", remote.shortHex());
    }

    @Override
    public void onPreviousKeysExpired(final NodeAddr remote, final long nowNanos) {
        dataPlane.dropSessionPrevious(remote);
    }

    @Override
    public void onClosed(final NodeAddr remote, final CloseReason reason, final long nowNanos) {
        dataPlane.removeSession(remote);
        mmp.remove(remote);
        LOG.log(Level.INFO, "session down: {0} ({1})", remote.shortHex(), reason);
    }

    @Override
    public void onFlush(final NodeAddr remote, final List<byte[]> packets, final long nowNanos) {
        for (final byte[] p : packets) {
            dataPlane.sendIpv6(p);
        }
    }

    @Override
    public void onLookupNeeded(final NodeAddr dest, final long nowNanos) {
        final Discovery.LookupResult r = mesh.lookup(dest, nowNanos);
        if (r == Discovery.LookupResult.NOT_IN_FILTERS
                || r == Discovery.LookupResult.NO_TREE_PEER) {
            // No peer can reach it: the packets waiting for a route are answered now rather than after a timeout
            // (the one being offered is queued only after this returns: onOutbound answers it).
            lookupFailed = dest;
            for (final byte[] packet : sessions.onUnreachable(dest, nowNanos)) {
                unreachable(packet);
            }
        }
    }

    @Override
    public void onCoordsWarmupNeeded(final NodeAddr remote, final long nowNanos) {
        dataPlane.sendSessionMessage(remote, SessionMessageType.COORDS_WARMUP.code(), null, true);
    }

    /**
     * The data plane reads the coordinates to carry from its forwarding table as each packet leaves (§5.3 step 2);
     * only the count goes from here.
     */
    @Override
    public void onWarmupReset(final NodeAddr remote, final int packets, final long nowNanos) {
        dataPlane.setSessionWarmup(remote, packets);
    }

    @Override
    public void onPathMtu(final NodeAddr dest, final int mtu, final long nowNanos) {
        dataPlane.lowerSessionPathMtu(dest, mtu);
    }

    /**
     * Renders {@code show_sessions} data in the reference's shape (operator.md §2.3): {@code sessions[]} with
     * {@code remote_addr, display_name, state, is_initiator, last_activity_ms, npub, stats{4}}, {@code resend_count}
     * while not established, {@code session_start_ms, current_k_bit, coords_warmup_remaining, is_draining} once
     * established, with {@code mmp} (loss, ETX and delivery ratios from the ReceiverReports, SRTT from their
     * timestamp echo; goodput from the reports' received bytes).
     *
     * @param names     display name of a node
     * @param wallNowMs Unix milliseconds now
     */
    public ObjectNode renderSessions(final Function<NodeAddr, String> names,
                                                                          final long nowNanos, final long wallNowMs) {
        final JsonNodeFactory f =
                JsonNodeFactory.instance;
        final ObjectNode data = f.objectNode();
        final ArrayNode list = data.putArray("sessions");
        final List<NodeAddr> remotes = new ArrayList<>(sessions.remotes());
        remotes.sort(null);
        for (final NodeAddr r : remotes) {
            final Sessions.SessionSnapshot snap = sessions.snapshot(r);
            final Sessions.SessionDetail d = sessions.detail(r);
            if (snap == null || d == null) {
                continue;
            }
            final SessionStats st = stats.apply(r);
            final ObjectNode o = list.addObject();
            o.put("remote_addr", r.toString());
            o.put("display_name", names.apply(r));
            o.put("state", switch (snap.state()) {
                case ESTABLISHED -> "established";
                case INITIATING -> "initiating";
                case AWAITING_MSG3 -> "awaiting_msg3";
            });
            o.put("is_initiator", snap.initiator());
            final long last = st != null ? Math.max(d.lastActivityNanos(), st.lastDataNanos()) : d.lastActivityNanos();
            o.put("last_activity_ms", wallNowMs - (nowNanos - last) / 1_000_000L);
            if (d.npub() != null) {
                o.put("npub", d.npub());
            } else {
                o.putNull("npub");
            }
            final ObjectNode so = o.putObject("stats");
            so.put("packets_sent", st == null ? 0 : st.packetsOut());
            so.put("packets_recv", st == null ? 0 : st.packetsIn());
            so.put("bytes_sent", st == null ? 0 : st.bytesOut());
            so.put("bytes_recv", st == null ? 0 : st.bytesIn());
            if (snap.state() != SessionState.ESTABLISHED) {
                o.put("resend_count", snap.resendCount());
            } else {
                o.put("session_start_ms", wallNowMs - (nowNanos - d.sessionStartNanos()) / 1_000_000L);
                o.put("current_k_bit", st != null ? st.keyEpoch() : snap.keyEpoch());
                o.put("coords_warmup_remaining", st != null ? st.coordsWarmupRemaining() : snap.warmupRemaining());
                o.put("is_draining", st != null ? st.draining() : d.draining());
                final SessionMmp m = mmp.get(r);
                if (m != null) {
                    final ObjectNode mo = o.putObject("mmp");
                    mo.put("mode", mmpMode);
                    mo.put("loss_rate", m.lossRate());
                    mo.put("etx", m.etx());
                    mo.put("goodput_bps", m.goodputBps());
                    mo.put("delivery_ratio_forward", m.deliveryRatioForward());
                    mo.put("delivery_ratio_reverse", m.deliveryRatioReverse());
                    if (st != null) {
                        mo.put("path_mtu", st.pathMtu());
                    }
                    if (m.srttMs() != null) {
                        mo.put("srtt_ms", m.srttMs());
                    }
                }
            }
        }
        return data;
    }


    /**
     * Renders the session half of {@code show_mmp}: {@code sessions[]{remote, display_name, mode,
     * session_layer{loss_rate, etx, path_mtu, srtt_ms?}}}: loss and ETX from the session MMP (null until measured),
     * path_mtu the data plane's current value; plus our {@code receiver{}} (the data plane's per-message jitter, OWD
     * trend, bursts, reorder and CE counts of the remote's traffic, null before two messages) and
     * {@code peer_report{}} (the same figures of our traffic from the remote's last ReceiverReport, null before one).
     */
    public ArrayNode renderMmp(final Function<NodeAddr, String> names,
                                                                    final String mode) {
        final ArrayNode list =
                JsonNodeFactory.instance.arrayNode();
        final List<NodeAddr> remotes = new ArrayList<>(sessions.remotes());
        remotes.sort(null);
        for (final NodeAddr r : remotes) {
            if (sessions.state(r) != SessionState.ESTABLISHED) {
                continue;
            }
            final SessionStats st = stats.apply(r);
            final ObjectNode o = list.addObject();
            o.put("remote", r.toString());
            o.put("display_name", names.apply(r));
            o.put("mode", mode);
            final ObjectNode l = o.putObject("session_layer");
            final SessionMmp m = mmp.get(r);
            l.put("loss_rate", m == null ? null : m.lossRate());
            l.put("etx", m == null ? null : m.etx());
            if (st == null) {
                l.putNull("path_mtu");
            } else {
                l.put("path_mtu", st.pathMtu());
            }
            if (m != null && m.srttMs() != null) {
                l.put("srtt_ms", m.srttMs());
            }
            // Ours (no reference equivalent): our receiver's per-message figures of the remote's traffic, and what
            // the remote's last ReceiverReport said of ours.
            ReceiverFigures.putJson(o.putObject("receiver"),
                    st == null ? null : ReceiverFigures.of(st.receiver(), st.messagesIn()));
            PeerReport.Figures.putJson(o.putObject("peer_report"),
                    m == null ? null : m.peerReport());
        }
        return list;
    }
}
