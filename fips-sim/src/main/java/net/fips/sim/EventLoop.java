package net.fips.sim;

import java.util.PriorityQueue;

/**
 * The simulator's virtual clock and its event queue: events run in time order, ties in scheduling order, so a run
 * is deterministic. Nothing here reads the wall clock.
 */
public final class EventLoop {
    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(final Event o) {
            final int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long now;
    private long seq;
    private long executed;

    /** @return the virtual time in nanoseconds since the start of the run */
    public long now() {
        return now;
    }

    /** @return events run so far */
    public long executed() {
        return executed;
    }

    /** @return events waiting */
    public int pending() {
        return queue.size();
    }

    /**
     * Runs {@code action} at virtual time {@code at} (not before now).
     *
     * @param at     nanoseconds
     * @param action what to do
     */
    public void at(final long at, final Runnable action) {
        queue.add(new Event(Math.max(at, now), seq++, action));
    }

    /** Runs {@code action} {@code delay} nanoseconds from now. */
    public void after(final long delay, final Runnable action) {
        at(now + delay, action);
    }

    /**
     * Runs every event due up to and including {@code until}, then sets the clock to {@code until}.
     *
     * @param until nanoseconds
     */
    public void runUntil(final long until) {
        while (!queue.isEmpty() && queue.peek().at <= until) {
            final Event e = queue.poll();
            now = e.at;
            executed++;
            e.action.run();
        }
        now = Math.max(now, until);
    }
}
