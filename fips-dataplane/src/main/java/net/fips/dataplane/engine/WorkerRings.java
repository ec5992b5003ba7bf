package net.fips.dataplane.engine;

import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportDestination;

/**
 * The rings of one worker and the wake-ups of their consumers: what it drains (from the receive side, from the
 * other workers, from local senders, from the TUN reader) and what it feeds (a tx ring per transport, a handoff
 * ring per other worker). A consumer it fed is woken once per duty cycle ({@link #wakeFed()}), not per slot.
 * Single-threaded on the producing side: owned by its worker.
 */
final class WorkerRings {
    /** Per transport: frames from its receive side. */
    final SpscSlotRing[] fromRx;
    /** Per worker: handoffs from it (null at this worker's own index). */
    final SpscSlotRing[] fromWorkers;
    /** Slots from local senders ({@code sendDatagram}, {@code sendIpv6}). */
    final MpscSlotRing fromCallers;
    /** IPv6 packets read from TUN, or null without a TUN device. */
    final SpscSlotRing fromTun;
    private final SpscSlotRing[] toTx;
    private final WakeSignal[] txSignals;
    private final boolean[] txFed;
    /** Per transport: the transports that run their own loop (woken through {@link Transport#wakeup()}), else null. */
    private final Transport[] loopTransports;
    private final TransportDestination[] slotDestination;
    private final SpscSlotRing[] toWorkers;
    private final WakeSignal[] workerSignals;
    private final boolean[] workerFed;

    WorkerRings(final SpscSlotRing[] fromRx, final SpscSlotRing[] fromWorkers, final MpscSlotRing fromCallers,
                final SpscSlotRing fromTun, final SpscSlotRing[] toTx, final WakeSignal[] txSignals,
                final Transport[] transports, final TransportDestination[] slotDestination,
                final SpscSlotRing[] toWorkers, final WakeSignal[] workerSignals) {
        this.fromRx = fromRx;
        this.fromWorkers = fromWorkers;
        this.fromCallers = fromCallers;
        this.fromTun = fromTun;
        this.toTx = toTx;
        this.txSignals = txSignals;
        this.txFed = new boolean[toTx.length];
        this.loopTransports = new Transport[transports.length];
        for (int t = 0; t < transports.length; t++) {
            loopTransports[t] = transports[t].drive() == Transport.Drive.OWN_LOOP ? transports[t] : null;
        }
        this.slotDestination = slotDestination;
        this.toWorkers = toWorkers;
        this.workerSignals = workerSignals;
        this.workerFed = new boolean[toWorkers.length];
    }

    /** @return the number of workers */
    int workers() {
        return workerFed.length;
    }

    /** Whether any ring this worker drains holds something (asked after it announced it will sleep). */
    boolean hasInput() {
        if (fromCallers.size() > 0 || fromTun != null && !fromTun.isEmpty()) {
            return true;
        }
        for (final SpscSlotRing ring : fromRx) {
            if (!ring.isEmpty()) {
                return true;
            }
        }
        for (final SpscSlotRing ring : fromWorkers) {
            if (ring != null && !ring.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * How many locally originated packets to take this cycle: no more than the fullest tx ring can still hold, so
     * a fast local sender meets back-pressure (its {@code sendDatagram} returns false) instead of drops here.
     */
    int txBudget(final int batch) {
        int budget = batch;
        for (final SpscSlotRing ring : toTx) {
            budget = Math.min(budget, ring.capacity() - ring.size());
        }
        return budget;
    }

    /**
     * Passes a sealed frame to the link's transmit side, with the link's destination.
     *
     * @return false when the tx ring was full (the slot is still the caller's)
     */
    boolean toTransport(final Link link, final int slot) {
        slotDestination[slot] = link.destination;
        // release (inside offer): the tx agent sees the sealed bytes, the slot header and the destination
        if (!toTx[link.transportId].offer(slot)) {
            slotDestination[slot] = null;
            return false;
        }
        txFed[link.transportId] = true;
        return true;
    }

    /**
     * Passes a slot (its metadata written) to another worker.
     *
     * @return false when the handoff ring was full (the slot is still the caller's)
     */
    boolean toWorker(final int worker, final int slot) {
        // release (inside offer): the other worker sees the bytes and the metadata before the index
        if (!toWorkers[worker].offer(slot)) {
            return false;
        }
        workerFed[worker] = true;
        return true;
    }

    /** Wakes every consumer fed this cycle: once per cycle rather than per frame, as a wake-up costs a fence. */
    void wakeFed() {
        final boolean[] fed = txFed;
        for (int t = 0; t < fed.length; t++) {
            if (fed[t]) {
                fed[t] = false;
                final Transport loop = loopTransports[t];
                if (loop == null) {
                    txSignals[t].wake();
                } else {
                    loop.wakeup();
                }
            }
        }
        final boolean[] workersFed = workerFed;
        for (int w = 0; w < workersFed.length; w++) {
            if (workersFed[w]) {
                workersFed[w] = false;
                workerSignals[w].wake();
            }
        }
    }

    /** Worker shutdown: returns every slot still queued to this worker to the pool. */
    void releaseInput(final PacketPool pool) {
        for (final SpscSlotRing ring : fromRx) {
            int s;
            while ((s = ring.poll()) != SpscSlotRing.EMPTY) {
                pool.release(s);
            }
        }
        for (final SpscSlotRing ring : fromWorkers) {
            int h;
            while (ring != null && (h = ring.poll()) != SpscSlotRing.EMPTY) {
                pool.release(h);
            }
        }
        int s;
        while ((s = fromCallers.poll()) != MpscSlotRing.EMPTY) {
            pool.release(s);
        }
        while (fromTun != null && (s = fromTun.poll()) != SpscSlotRing.EMPTY) {
            pool.release(s);
        }
    }
}
