package net.fips.control.ctl;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

import net.fips.control.metrics.StatsHistory;

/**
 * What the {@code show_stats_*} commands read: the node's stats history, the clock its samples are stamped with
 * (for the {@code *_secs_ago} fields) and the node's names for peers.
 *
 * @param history      the history (safe to query from any thread)
 * @param nanoClock    the control clock the history is fed with
 * @param aliasOf      a peer's configured alias by npub, or null when it has none
 * @param displayNameOf a peer's display name by npub (alias, else a short npub)
 */
public record StatsView(StatsHistory history, LongSupplier nanoClock, Function<String, String> aliasOf,
                        Function<String, String> displayNameOf) {

    /** Checks the parts. */
    public StatsView {
        Objects.requireNonNull(history, "history");
        Objects.requireNonNull(nanoClock, "nanoClock");
        Objects.requireNonNull(aliasOf, "aliasOf");
        Objects.requireNonNull(displayNameOf, "displayNameOf");
    }
}
