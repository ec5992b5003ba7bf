package net.fips.dataplane.pool;

/**
 * Grades what came out of a ring against what went in: every successfully offered index exactly once, nothing
 * that was refused or never offered, and each producer's indices in the order it offered them.
 */
final class Sequences {
    static final String OK = "OK";
    static final String LOST = "LOST";
    static final String DUPLICATED = "DUPLICATED";
    static final String PHANTOM = "PHANTOM";
    static final String REORDERED = "REORDERED";

    private Sequences() {
    }

    /**
     * @param offered  per producer, the values it offered in program order
     * @param accepted per producer, whether each offer returned true
     * @param out      every value taken out, in the order the (single) consumer took them
     * @param outCount how many of {@code out} are valid
     * @return {@link #OK} or the first violation found
     */
    static String grade(final int[][] offered, final boolean[][] accepted, final int[] out, final int outCount) {
        for (int i = 0; i < outCount; i++) {
            for (int j = i + 1; j < outCount; j++) {
                if (out[i] == out[j]) {
                    return DUPLICATED;
                }
            }
        }
        for (int i = 0; i < outCount; i++) {
            if (!wasAccepted(offered, accepted, out[i])) {
                return PHANTOM;
            }
        }
        for (int p = 0; p < offered.length; p++) {
            int last = -1;
            for (int k = 0; k < offered[p].length; k++) {
                if (!accepted[p][k]) {
                    continue;
                }
                final int at = indexOf(out, outCount, offered[p][k]);
                if (at < 0) {
                    return LOST;
                }
                if (at < last) {
                    return REORDERED;
                }
                last = at;
            }
        }
        return OK;
    }

    private static boolean wasAccepted(final int[][] offered, final boolean[][] accepted, final int v) {
        for (int p = 0; p < offered.length; p++) {
            for (int k = 0; k < offered[p].length; k++) {
                if (offered[p][k] == v && accepted[p][k]) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int indexOf(final int[] out, final int outCount, final int v) {
        for (int i = 0; i < outCount; i++) {
            if (out[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
