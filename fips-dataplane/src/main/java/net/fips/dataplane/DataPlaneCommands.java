package net.fips.dataplane;

import java.net.InetSocketAddress;

import net.fips.dataplane.route.ForwardingTable;

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

    /** Sends a plaintext handshake packet (FMP phase 1 or 2) as is. */
    void sendHandshake(int transportId, InetSocketAddress to, byte[] packet);

    /**
     * Installs the routing snapshot the transit path uses from the next packet on (workers read it with one acquire
     * load per datagram). With a table, received SessionDatagrams are forwarded, delivered locally only when
     * addressed to the table's own address, and coordinates and routing failures are reported as
     * {@link DataPlaneEvent.RoutingEvent}s; {@code null} (the initial state) delivers every SessionDatagram locally.
     */
    void setForwardingTable(ForwardingTable table);
}
