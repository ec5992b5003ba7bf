package net.fips.control.tor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the node makes of successive monitoring snapshots (transports.md §6.6): it keeps the latest one for
 * {@code show_transports}, and says what to log: each bootstrap milestone (25, 50, 75, 100 %) once as it is
 * passed, one warning when bootstrap is not at 100 % 60 s after monitoring began (re-armed once it gets there),
 * network liveness transitions, and entering dormant mode. Pure and clock-injected: the caller polls Tor every
 * {@link #INTERVAL_NANOS} and passes the time.
 */
public final class TorMonitor {
    /** How often the reference polls the control port: 10 s. */
    public static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** After how long an unfinished bootstrap is worth a warning: 60 s. */
    public static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int[] MILESTONES = {25, 50, 75, 100};

    /** A line to log. */
    public record Event(boolean warning, String message) {
    }

    private final long startNanos;
    private int lastBootstrap;
    private String lastLiveness;
    private boolean wasDormant;
    private boolean stallWarned;
    private volatile TorMonitoring latest;

    /** @param startNanos when monitoring began */
    public TorMonitor(final long startNanos) {
        this.startNanos = startNanos;
    }

    /** @return the latest snapshot, or null before the first */
    public TorMonitoring latest() {
        return latest;
    }

    /**
     * @param m   a fresh snapshot
     * @param now when it was taken
     * @return what to log, in order
     */
    public List<Event> onSnapshot(final TorMonitoring m, final long now) {
        final List<Event> out = new ArrayList<>();
        if (m.bootstrap() != null) {
            final int b = m.bootstrap();
            for (final int milestone : MILESTONES) {
                if (b >= milestone && lastBootstrap < milestone) {
                    out.add(new Event(false, "Tor bootstrap " + milestone + "%"));
                }
            }
            if (b < 100 && now - startNanos > STALL_NANOS && !stallWarned) {
                out.add(new Event(true, "Tor bootstrap stalled: " + b + "%, not at 100% after 60s"));
                stallWarned = true;
            }
            if (b == 100) {
                stallWarned = false;
            }
            lastBootstrap = b;
        }
        if (m.networkLiveness() != null) {
            if (lastLiveness != null && !lastLiveness.equals(m.networkLiveness())) {
                out.add(new Event(true, "Tor network liveness changed: " + lastLiveness + " -> "
                        + m.networkLiveness()));
            }
            lastLiveness = m.networkLiveness();
        }
        if (m.dormant() != null) {
            if (m.dormant() && !wasDormant) {
                out.add(new Event(true, "Tor daemon entered dormant mode"));
            }
            wasDormant = m.dormant();
        }
        latest = m;
        return out;
    }
}
