package net.fips.control.link;

import java.util.HashMap;
import java.util.Map;

/**
 * At most one log line per key per interval, for lines that a remote party or a retry loop can trigger again and
 * again. Holds at most {@code maxKeys} keys: when full, keys whose interval has passed are dropped and, if none
 * has, the line is skipped, so a flood from many sources cannot grow it without bound. Time is given by the caller.
 *
 * @param <K> what a line is about: a peer, a source address
 */
final class LogThrottle<K> {
    private final long intervalNanos;
    private final int maxKeys;
    private final Map<K, Long> lastNanos = new HashMap<>();

    LogThrottle(final long intervalNanos, final int maxKeys) {
        this.intervalNanos = intervalNanos;
        this.maxKeys = maxKeys;
    }

    /**
     * @param key      what the line is about
     * @param nowNanos the control clock
     * @return whether to write the line now (and if so, the key's interval starts again)
     */
    boolean allow(final K key, final long nowNanos) {
        final Long last = lastNanos.get(key);
        if (last != null && nowNanos - last < intervalNanos) {
            return false;
        }
        if (last == null && lastNanos.size() >= maxKeys) {
            lastNanos.values().removeIf(t -> nowNanos - t >= intervalNanos);
            if (lastNanos.size() >= maxKeys) {
                return false;
            }
        }
        lastNanos.put(key, nowNanos);
        return true;
    }
}
