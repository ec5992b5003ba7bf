package net.fips.dataplane.engine;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import net.fips.dataplane.DataPlaneEvent;

/**
 * The bounded queue of {@link DataPlaneEvent}s from the data-plane threads to the control thread. Offering never
 * blocks: a full queue drops the event and counts it, so a stalled control plane cannot stall packet processing.
 */
final class EventQueue {
    private final ArrayBlockingQueue<DataPlaneEvent> queue;
    private final AtomicLong dropped = new AtomicLong();
    private final Runnable signal;

    EventQueue(final int capacity, final Runnable signal) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.signal = signal;
    }

    /** Any thread. @return false if the queue was full (counted) */
    boolean offer(final DataPlaneEvent event) {
        if (queue.offer(event)) {
            // After the offer, so a control thread woken by the signal finds the event.
            signal.run();
            return true;
        }
        dropped.incrementAndGet();
        return false;
    }

    /** @return the oldest event, or null */
    DataPlaneEvent poll() {
        return queue.poll();
    }

    /** @return events handed to {@code sink} */
    int drain(final Consumer<? super DataPlaneEvent> sink) {
        int n = 0;
        DataPlaneEvent e;
        while ((e = queue.poll()) != null) {
            sink.accept(e);
            n++;
        }
        return n;
    }

    /** @return events dropped because the queue was full */
    long dropped() {
        return dropped.get();
    }
}
