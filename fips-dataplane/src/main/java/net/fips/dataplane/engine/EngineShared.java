package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportDestination;

/**
 * What every worker shares, fixed at {@link DataPlane#start()}.
 *
 * @param context         the data plane's settings
 * @param pool            the packet pool
 * @param transports      the transports, by id
 * @param slotDestination per slot: where its sealed frame goes (written by the worker, read by the tx side)
 * @param slotSource      per slot: the slice of its metadata that holds the sender's address
 * @param table           the dispatch table
 * @param events          the queue to the control plane
 * @param routes          the published forwarding table
 */
record EngineShared(DataPlaneContext context, PacketPool pool, Transport[] transports,
                    TransportDestination[] slotDestination, MemorySegment[] slotSource, IndexTableHolder table,
                    EventQueue events, ForwardingTableHolder routes) {
}
