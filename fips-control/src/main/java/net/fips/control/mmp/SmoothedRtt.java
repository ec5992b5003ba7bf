package net.fips.control.mmp;

/**
 * Smoothed RTT of one MMP instance, link or session (routing-session.md §6.3): RFC 6298 in integer microseconds
 * with the reference's shift arithmetic; the first sample sets {@code srtt = R, rttvar = R/2}. Single thread.
 */
public final class SmoothedRtt {
    private long srttMicros;
    private long rttvarMicros;
    private int samples;

    /** Folds in one RTT sample (µs). */
    public void sample(final long rttMicros) {
        if (samples == 0) {
            srttMicros = rttMicros;
            rttvarMicros = rttMicros / 2;
        } else {
            rttvarMicros += (Math.abs(srttMicros - rttMicros) - rttvarMicros) >> 2;
            srttMicros += (rttMicros - srttMicros) >> 3;
        }
        samples++;
    }

    /** @return the smoothed RTT in µs (0 before the first sample) */
    public long srttMicros() {
        return srttMicros;
    }

    /** @return samples taken */
    public int samples() {
        return samples;
    }
}
