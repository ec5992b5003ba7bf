package net.fips.testing;

import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The in-memory bus of the mesh harnesses: messages wait in FIFO order until {@link #drain} hands each to the
 * harness's delivery (which may send more); a drop filter stands for loss, and a bound on the deliveries of one
 * drain turns a message storm (nodes answering each other forever) into a failed test instead of a hung one.
 *
 * <p>Each harness of fips-control (discovery's {@code TestMesh}, session's {@code SessionBus}, tree's
 * {@code TreeMesh}) wires a different subsystem's nodes to this one bus under its own manual clock: the message
 * types and what a delivery calls differ, the queueing, dropping and storm bound do not.
 *
 * @param <M> the message type, carrying its sender and receiver
 */
public final class MessageBus<M> {
    private final ArrayDeque<M> queue = new ArrayDeque<>();
    private final int maxDeliveries;
    private Predicate<? super M> drop = m -> false;
    private long dropped;

    /** @param maxDeliveries the most messages one {@link #drain} may deliver before it fails the test */
    public MessageBus(final int maxDeliveries) {
        if (maxDeliveries < 1) {
            throw new IllegalArgumentException("maxDeliveries " + maxDeliveries);
        }
        this.maxDeliveries = maxDeliveries;
    }

    /** Queues {@code message} behind those already waiting. */
    public void send(final M message) {
        queue.add(message);
    }

    /** Drops, from now on, every message {@code filter} accepts when it is its turn (loss, a cut link). */
    public void dropWhen(final Predicate<? super M> filter) {
        drop = filter;
    }

    /** @return how many messages the drop filter has dropped */
    public long dropped() {
        return dropped;
    }

    /** @return how many messages wait */
    public int size() {
        return queue.size();
    }

    /** Forgets every waiting message (they are lost, not dropped). */
    public void clear() {
        queue.clear();
    }

    /**
     * Delivers waiting messages in FIFO order, including those the deliveries send, until none waits.
     *
     * @param deliver what a delivery does at the receiver
     * @return how many were delivered (dropped ones not counted)
     * @throws AssertionError when more than the bound were delivered: the mesh does not quiesce
     */
    public int drain(final Consumer<? super M> deliver) {
        int delivered = 0;
        M m;
        while ((m = queue.poll()) != null) {
            if (drop.test(m)) {
                dropped++;
                continue;
            }
            if (++delivered > maxDeliveries) {
                throw new AssertionError("message storm: more than " + maxDeliveries + " deliveries in one drain");
            }
            deliver.accept(m);
        }
        return delivered;
    }
}
