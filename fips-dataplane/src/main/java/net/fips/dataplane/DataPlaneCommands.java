package net.fips.dataplane;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.wire.NodeAddr;

/**
 * What the control plane may ask of the data plane. Called from the control thread only; every method is
 * non-blocking and takes effect on the data plane's own threads in call order. Keys are copied; the caller may
 * wipe its arrays afterwards.
 *
 * <p>Per link the data plane keeps up to three link sessions, as the reference does (crypto-link.md §5.11):
 * <em>current</em> (sends and receives), <em>pending</em> (a completed rekey handshake not yet cut over; receives
 * only, by K-bit trial) and <em>previous</em> (the session before the last cutover; receives only, until the
 * drain window ends). Each session is found by {@code (transportId, ourIndex)}.
 */
public interface DataPlaneCommands {

    /** A new established link (after a completed IK handshake): becomes the link's current session, K = 0. */
    void addLink(LinkSpec spec);

    /** A completed rekey handshake: stored as the link's pending session and registered for lookup at once. */
    void installPending(long linkId, int ourIndex, int theirIndex, byte[] sendKey, byte[] recvKey);

    /**
     * Cuts the link over: current becomes previous (still receiving), pending becomes current, the K bit
     * toggles, the send counter restarts at 0 and frame timestamps count from {@code sessionStartNanos}, the
     * instant the control plane adopts as the new session's start (one time base per link, see {@link LinkSpec}).
     * No-op when there is no pending session: the data plane then already cut over by the K-bit trial and
     * reported the instant it used in {@link DataPlaneEvent.CutOver}, which the control plane adopts instead.
     *
     * @param linkId            the link
     * @param sessionStartNanos the new session's start on the shared clock, no later than the data plane's
     *                          reading when it applies the command
     */
    void cutover(long linkId, long sessionStartNanos);

    /** Ends the drain window: the previous session and its index are forgotten. */
    void dropPrevious(long linkId);

    /** Forgets the link and all its sessions and indices. */
    void removeLink(long linkId);

    /**
     * Seals one link message ({@code message[0]} is the msg_type) on the link's current session and sends it to
     * the link's current address. A link that no longer exists makes this a counted drop.
     */
    void sendLinkMessage(long linkId, byte[] message);

    /**
     * ECN (routing-session.md §6.6): whether the link is congested (decided by the control plane from its MMP
     * figures and the transports' kernel drops, when {@code node.ecn.enabled}). While set, transit SessionDatagrams
     * forwarded onto the link carry the FMP CE flag; datagrams this node originates never do.
     */
    void setLinkCongested(long linkId, boolean congested);

    /** Sends a plaintext handshake packet (FMP phase 1 or 2) as is. */
    void sendHandshake(int transportId, TransportAddr to, byte[] packet);

    /**
     * Installs the routing snapshot the transit path uses from the next packet on (workers read it with one acquire
     * load per datagram). With a table, received SessionDatagrams are forwarded, delivered locally only when
     * addressed to the table's own address, and coordinates and routing failures are reported as
     * {@link DataPlaneEvent.RoutingEvent}s; {@code null} (the initial state) delivers every SessionDatagram locally.
     */
    void setForwardingTable(ForwardingTable table);

    // ------------------------------------------------------------------ end-to-end sessions (FSP)

    /**
     * A session became established: the worker owning {@code spec.remote()} seals outbound IPv6 packets for that
     * node and opens its DataPackets from now on. Replaces an existing session to the same node.
     */
    void addSession(SessionSpec spec);

    /** A completed session rekey: the new keys become the pending generation (receive by trial only). */
    void installSessionPending(NodeAddr remote, byte[] sendKey, byte[] recvKey);

    /**
     * Promotes the pending generation (the K bit flips, the counter restarts, timestamps count from
     * {@code sessionStartNanos}); the old current keeps receiving as previous. No-op without a pending generation:
     * the data plane then already promoted it on an authenticated frame and said so in
     * {@link DataPlaneEvent.SessionKeysAuthenticated}.
     */
    void cutoverSession(NodeAddr remote, long sessionStartNanos);

    /** Ends the drain window of the previous generation. */
    void dropSessionPrevious(NodeAddr remote);

    /** Forgets the session and all its keys. */
    void removeSession(NodeAddr remote);

    /**
     * Coordinate warm-up (routing-session.md §5.3-§5.4): the next {@code packets} DataPackets carry the CP flag
     * with our coordinates and the destination's in clear, or are preceded by a standalone CoordsWarmup when they
     * would not fit the MTU. The coordinates are read from the forwarding table as each packet leaves (ours; the
     * destination's cached ones, else ours), as the reference reads its tree state and cache at send time.
     */
    void setSessionWarmup(NodeAddr remote, int packets);

    /** Lowers the session's path MTU (PathMtuNotification, MtuExceeded); never raises it. */
    void lowerSessionPathMtu(NodeAddr remote, int pathMtu);

    /**
     * Seals one session-layer message other than a DataPacket (a CoordsWarmup with {@code withCoords}, an MMP report,
     * a PathMtuNotification) on the current generation and routes it. A session that does not exist makes this a
     * counted drop. With {@code withCoords} the message carries CP and the coordinates routing knows as it leaves
     * (see {@link #setSessionWarmup}).
     *
     * @param msgType the FSP inner msg_type
     * @param body    the message body after the inner header
     */
    void sendSessionMessage(NodeAddr remote, int msgType, byte[] body, boolean withCoords);

    /**
     * Sends an IPv6 packet as if it had been read from the TUN device (the packets a session queued while it was
     * being set up). Counted drop when the worker's queue is full.
     */
    void sendIpv6(byte[] packet);

    /** Writes an IPv6 packet (an ICMPv6 error built by the control plane) to the IPv6 side (the TUN device). */
    void writeIpv6(byte[] packet);
}
