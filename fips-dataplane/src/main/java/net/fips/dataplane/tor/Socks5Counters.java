package net.fips.dataplane.tor;

/**
 * Where a SOCKS5 dial's failures are counted. Each proxied transport has its own counter set: Tor counts reply 05
 * as {@code connect_refused} ({@link TorCounters}), Nym, whose reference stats have no such key, counts every
 * failure but a timeout as {@code socks5_errors} ({@code nym.NymCounters}).
 */
public interface Socks5Counters {
    /**
     * Counts one failed dial.
     *
     * @param f why it failed
     */
    void record(Socks5Failure f);
}
