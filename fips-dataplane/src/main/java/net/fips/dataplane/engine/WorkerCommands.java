package net.fips.dataplane.engine;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.PacketView;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Applies a worker's {@link WorkerCommand}s to the state it owns: its links (through {@link LinkCrypto}) and its
 * sessions ({@link SessionPath}). What is left for the worker's loop comes back as a value: frames held for an
 * index that an install brought in ({@link #RELEASE_HELD}), or a slot to send ({@link #SEAL_ON_LINK},
 * {@link #SEND_IPV6}). Single-threaded: owned by its worker.
 */
final class WorkerCommands {
    /** {@link #apply}: nothing left to do. */
    static final int DONE = 0;
    /** {@link #apply}: frames {@link #held()} for {@link #linkId()} are to be opened, after this round's commands. */
    static final int RELEASE_HELD = 1;
    /** {@link #apply}: the link message in {@link #slot()} is to be sealed for {@link #link()} and sent. */
    static final int SEAL_ON_LINK = 2;
    /** {@link #apply}: the IPv6 packet in {@link #slot()} is to go through the session path. */
    static final int SEND_IPV6 = 3;

    private final PacketPool pool;
    private final PacketView view;
    private final Counters counters;
    private final LinkMap links;
    private final LinkCrypto crypto;
    private final SessionPath sessions;
    private final ForwardingTableHolder routes;
    private long linkId;
    private int[] held;
    private Link link;
    private int slot;

    /** @param sessions the worker's session path, or null when it is off */
    WorkerCommands(final PacketPool pool, final Counters counters, final LinkMap links, final LinkCrypto crypto,
                   final SessionPath sessions, final ForwardingTableHolder routes) {
        this.pool = pool;
        this.view = pool.newView();
        this.counters = counters;
        this.links = links;
        this.crypto = crypto;
        this.sessions = sessions;
        this.routes = routes;
    }

    /** @return {@link #DONE}, {@link #RELEASE_HELD}, {@link #SEAL_ON_LINK} or {@link #SEND_IPV6} */
    int apply(final WorkerCommand command) {
        link = null;
        held = null;
        switch (command) {
            case WorkerCommand.AddLink(final Link l, final int[] frames) -> {
                links.put(l.linkId, l);
                l.publishSession();
                return held(l.linkId, frames);
            }
            case WorkerCommand.InstallPending(final long id, final int transportId, final LinkSession session,
                                              final int[] frames) -> {
                crypto.installPending(links.get(id), id, transportId, session);
                return held(id, frames);
            }
            case WorkerCommand.Cutover(final long id, final long sessionStartNanos) -> {
                final Link l = links.get(id);
                if (l != null) {
                    crypto.cutover(l, sessionStartNanos);
                }
            }
            case WorkerCommand.DropPrevious(final long id) -> {
                final Link l = links.get(id);
                if (l != null) {
                    crypto.dropPrevious(l);
                }
            }
            case WorkerCommand.RemoveLink(final long id) -> {
                final Link l = links.remove(id);
                if (l != null) {
                    crypto.forgetAll(l);
                }
            }
            case WorkerCommand.SendLinkMessage(final long id, final byte[] message) -> {
                return linkMessage(id, message);
            }
            case WorkerCommand.SetCongested(final long id, final boolean congested) -> {
                final Link l = links.get(id);
                if (l != null) {
                    l.congested = congested;
                }
            }
            default -> {
                return applySessionCommand(command);
            }
        }
        return DONE;
    }

    /** @return the link id of the frames {@link #held()} (after {@link #RELEASE_HELD}) */
    long linkId() {
        return linkId;
    }

    /** @return the frames to open (after {@link #RELEASE_HELD}) */
    int[] held() {
        return held;
    }

    /** @return the link to seal {@link #slot()} for (after {@link #SEAL_ON_LINK}) */
    Link link() {
        return link;
    }

    /** @return the slot to send (after {@link #SEAL_ON_LINK} or {@link #SEND_IPV6}); the worker's now */
    int slot() {
        return slot;
    }

    private int held(final long id, final int[] frames) {
        if (frames.length == 0) {
            return DONE;
        }
        linkId = id;
        held = frames;
        return RELEASE_HELD;
    }

    private int linkMessage(final long id, final byte[] message) {
        final Link l = links.get(id);
        if (l == null || message.length == 0) {
            counters.increment(DataPlaneCounter.DROP_NO_LINK);
            return DONE;
        }
        final int s = pool.acquire();
        if (s == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return DONE;
        }
        final PacketView view = this.view.wrap(s);
        if (message.length > view.tailroom()) {
            counters.increment(DataPlaneCounter.DROP_MTU);
            pool.release(s);
            return DONE;
        }
        view.setLength(message.length);
        view.putBytes(0, message);
        link = l;
        slot = s;
        return SEAL_ON_LINK;
    }

    private int applySessionCommand(final WorkerCommand command) {
        if (sessions == null) {
            counters.increment(DataPlaneCounter.DROP_SESSION_UNKNOWN);
            return DONE;
        }
        switch (command) {
            case WorkerCommand.AddSession(final FspSession session) -> sessions.addSession(routes.get(), session);
            case WorkerCommand.InstallSessionPending(final NodeAddr remote, final byte[] send, final byte[] recv) ->
                    sessions.installPending(routes.get(), remote, send, recv);
            case WorkerCommand.CutoverSession(final NodeAddr remote, final long start) ->
                    sessions.cutover(remote, start);
            case WorkerCommand.DropSessionPrevious(final NodeAddr remote) -> sessions.dropPrevious(remote);
            case WorkerCommand.RemoveSession(final NodeAddr remote) -> sessions.remove(remote);
            case WorkerCommand.SetSessionWarmup(final NodeAddr remote, final int packets) ->
                    sessions.setWarmup(remote, packets);
            case WorkerCommand.LowerSessionPathMtu(final NodeAddr remote, final int mtu) ->
                    sessions.lowerPathMtu(remote, mtu);
            case WorkerCommand.SendSessionMessage(final NodeAddr remote, final int type, final byte[] body,
                                                  final boolean cp) ->
                    sessions.sendMessage(routes.get(), remote, type, body, cp);
            case WorkerCommand.SendIpv6(final byte[] packet) -> {
                return ipv6Packet(packet);
            }
            case WorkerCommand.WriteIpv6(final byte[] packet) -> sessions.writeIpv6(packet);
            default -> throw new IllegalStateException("unhandled command " + command.getClass().getSimpleName());
        }
        return DONE;
    }

    private int ipv6Packet(final byte[] packet) {
        if (packet.length == 0 || packet.length > pool.maxMtuBytes()) {
            counters.increment(DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
            return DONE;
        }
        final int s = pool.acquire();
        if (s == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return DONE;
        }
        final PacketView view = this.view.wrap(s);
        view.setLength(packet.length);
        view.putBytes(0, packet);
        slot = s;
        return SEND_IPV6;
    }
}
