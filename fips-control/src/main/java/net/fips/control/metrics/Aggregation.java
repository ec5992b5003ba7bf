package net.fips.control.metrics;

/**
 * How sixty 1 s samples fold into one 1 min sample. Gaps (NaN) are left out of every reduction; a minute of gaps
 * only is a gap.
 */
public enum Aggregation {
    /** The last sample that is not a gap (gauges such as mesh size). */
    LAST,
    /** The sum of the samples (event counts per second become events per minute). */
    SUM,
    /** The mean of the samples (rates and ratios). */
    MEAN
}
