package net.fips.dataplane.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.lang.foreign.MemorySegment;

/**
 * One configured transport instance (transports.md §1.1). The data plane owns it once added
 * ({@code DataPlane.addTransport}) and closes it; the control plane reads its metadata, stats and connection state
 * and asks it to connect.
 *
 * <p><b>How frames move</b> ({@link #drive()}). The UDP transport ({@code net.fips.dataplane.udp.UdpTransport})
 * is driven by the data plane's own receive and send agents (recvmmsg/sendmmsg/GSO,
 * {@link Drive#DATA_PLANE_AGENTS}) and never gets {@link #start(TransportPort)}. Every other transport
 * ({@link Drive#OWN_LOOP}) runs one event-loop thread of its own (epoll/poll through the bindings, no thread per
 * connection), started by {@link #start(TransportPort)} when the data plane starts: it writes each received FMP
 * packet into a pool slot and hands it over with {@link TransportPort#deliver}; workers queue sealed slots for it
 * and call {@link #wakeup()}; the loop takes them with {@link TransportPort#drainOutbound} and
 * {@link TransportPort#takeDestination}, sends, and {@link TransportPort#release}s them.
 *
 * <p>Threads: {@link #wakeup()} and the stats/state readers are called from any thread; {@link #connect},
 * {@link #connectionState}, {@link #closeConnection} and {@link #drainDiscovered} from the control thread; the
 * destination methods from the control thread or a worker (roaming), so they must be thread-safe.
 */
public interface Transport extends AutoCloseable {

    /** Lifecycle (transports.md §1.1): only {@link #UP} is operational. */
    enum State { CONFIGURED, STARTING, UP, DOWN, FAILED }

    /** How the data plane moves a transport's frames. */
    enum Drive {
        /** The data plane's receive and send agents drive the socket (recvmmsg/sendmmsg/GSO; UDP); no {@code start}. */
        DATA_PLANE_AGENTS,
        /** The transport runs one event-loop thread of its own, started by {@link #start(TransportPort)}. */
        OWN_LOOP
    }

    /** @return the type name used in config, adverts and {@code show_transports} ({@link TransportTypes}) */
    String typeName();

    /** @return the instance name of a named-instance config, or null */
    String instanceName();

    /** @return whether links need a connection first (TCP, Tor, Nym, BLE): fixed by the type name */
    default boolean connectionOriented() {
        return TransportTypes.connectionOriented(typeName());
    }

    /** @return whether the medium delivers in order without loss (TCP, Tor, Nym, BLE): fixed by the type name */
    default boolean reliable() {
        return TransportTypes.connectionOriented(typeName());
    }

    /**
     * @return whether this transport only carries the links it was set up for (a socket adopted from NAT traversal,
     *         discovery-gateway.md §2.6): never picked to dial an address, never advertised
     */
    default boolean bootstrapOnly() {
        return false;
    }

    /** @return the current lifecycle state */
    State state();

    /** @return how the data plane moves this transport's frames: {@link Drive#OWN_LOOP} unless it says otherwise */
    default Drive drive() {
        return Drive.OWN_LOOP;
    }

    /**
     * @return whether this transport's one datagram socket can send to {@code address} (its family: an IPv4 socket
     *         cannot reach IPv6); false for a transport without such a socket (everything but UDP)
     */
    default boolean datagramReaches(final InetSocketAddress address) {
        return false;
    }

    /** @return the largest FMP packet this transport sends (framing excluded) */
    int mtu();

    /** @return the largest FMP packet on the link to {@code address}; {@link #mtu()} unless the medium says less */
    default int linkMtu(final TransportAddr address) {
        return mtu();
    }

    /**
     * Makes the per-link send handle for {@code address} (control thread or a worker on roaming; may allocate and
     * parse, must not block on the network).
     *
     * @throws TransportException when the address cannot be used with this transport (wrong form or family)
     */
    TransportDestination destination(TransportAddr address) throws TransportException;

    /**
     * Decodes source bytes this transport wrote into a slot's source area (handshake events, roaming; allocates).
     *
     * @return the address, or null when the bytes are not a valid source of this transport
     */
    TransportAddr sourceAddress(MemorySegment source, long offset, int length);

    /** Connection-oriented only: starts a non-blocking connect; no-op if connected or connecting. */
    default void connect(final TransportAddr address) {
    }

    /** @return the connection state of {@code address}; always {@link ConnectionState#CONNECTED} when connectionless */
    default ConnectionState connectionState(final TransportAddr address) {
        return ConnectionState.CONNECTED;
    }

    /** Drops one pooled connection (duplicate-link losers, peer removal); no-op when connectionless. */
    default void closeConnection(final TransportAddr address) {
    }

    /** @return the peers found on the medium since the last call (drained) */
    default List<DiscoveredPeer> drainDiscovered() {
        return List.of();
    }

    /** @return whether the node should dial discovered peers */
    default boolean autoConnect() {
        return false;
    }

    /** @return whether a handshake msg1 from a stranger on this transport is admitted (§1.6) */
    boolean acceptConnections();

    /** @return the kernel's cumulative receive-drop counter, or empty when this transport does not measure one */
    default OptionalLong kernelDrops() {
        return OptionalLong.empty();
    }

    /** @return the per-type counters in the reference's order and names (transports.md §1.8) for show_transports */
    Map<String, Long> stats();

    /** @return the bound local address, or null (UDP, TCP listener) */
    default TransportAddr localAddr() {
        return null;
    }

    /** @return the network interface this transport is bound to, or null (Ethernet, BLE) */
    default String interfaceName() {
        return null;
    }

    /**
     * Starts the transport's event loop (every transport but UDP), called once by the data plane's start. The
     * transport binds what is left to bind, starts its one thread, and from then on delivers into {@code port}.
     *
     * @throws IOException when it cannot start (the data plane then fails to start)
     */
    default void start(final TransportPort port) throws IOException {
        throw new UnsupportedOperationException(typeName() + " transport is driven by the data plane's agents");
    }

    /** Wakes the event loop: slots were queued for it, or it should stop. Any thread; cheap when awake. */
    void wakeup();

    /**
     * Stops the event loop and waits for its thread, handing back every slot it holds ({@link TransportPort#release});
     * the state becomes {@link State#DOWN}. Idempotent.
     */
    default void stop() {
    }

    /** Closes sockets and frees native memory; after {@link #stop()}. Idempotent. */
    @Override
    void close();
}
