package net.fips.dataplane.engine;

import java.util.Arrays;

import net.fips.dataplane.route.ForwardingTable;

/**
 * Session-layer messages (CoordsWarmup, PathMtuNotification, the control plane's reports) that a worker's
 * {@link SessionPath} sealed during one call, each with the next hop it was routed to; the worker sends them, in
 * order, when the call returns. So the session path never calls back into its worker. Single-threaded.
 */
final class SessionOutbox {
    private int[] slots = new int[SessionHold.MAX_PER_REMOTE + 2];
    private int[] peers = new int[slots.length];
    private ForwardingTable[] tables = new ForwardingTable[slots.length];
    private int count;

    /** Queues a sealed SessionDatagram in {@code slot} for the table's {@code peer}; the slot is the outbox's. */
    void add(final ForwardingTable table, final int slot, final int peer) {
        if (count == slots.length) {
            // A call queues at most one message per held message it releases, plus one: never reached in practice.
            slots = Arrays.copyOf(slots, count * 2);
            peers = Arrays.copyOf(peers, count * 2);
            tables = Arrays.copyOf(tables, count * 2);
        }
        slots[count] = slot;
        peers[count] = peer;
        tables[count] = table;
        count++;
    }

    /** @return how many messages are queued */
    int size() {
        return count;
    }

    /** @return the slot of message {@code i} */
    int slot(final int i) {
        return slots[i];
    }

    /** @return the next hop (peer index in {@link #table(int)}) of message {@code i} */
    int peer(final int i) {
        return peers[i];
    }

    /** @return the forwarding table message {@code i} was routed with */
    ForwardingTable table(final int i) {
        return tables[i];
    }

    /** Empties the outbox once its messages were taken. */
    void clear() {
        for (int i = 0; i < count; i++) {
            tables[i] = null;
        }
        count = 0;
    }
}
