package net.fips.control.link;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/**
 * Node-wide link indices of every key epoch (crypto-link §5.6; the spec calls them session indices): uniformly
 * random u32 values, unique across all transports, each drawn afresh for every handshake attempt and every rekey.
 * Zero is a legal value.
 */
final class IndexAllocator {
    /** Attempts before giving up, as the reference. */
    static final int MAX_ATTEMPTS = 100;

    private final Random random;
    private final Set<Integer> used = new HashSet<>();

    IndexAllocator(final Random random) {
        this.random = random;
    }

    /** @return a fresh index as an unsigned value, or -1 when 100 draws all collided */
    long allocate() {
        for (int i = 0; i < MAX_ATTEMPTS; i++) {
            final int candidate = random.nextInt();
            if (used.add(candidate)) {
                return Integer.toUnsignedLong(candidate);
            }
        }
        return -1;
    }

    void free(final int index) {
        used.remove(index);
    }

    boolean inUse(final int index) {
        return used.contains(index);
    }

    int size() {
        return used.size();
    }
}
