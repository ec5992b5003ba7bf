package net.fips.gateway;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.Inet6Address;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Conntrack entries per original destination, read from {@code /proc/net/nf_conntrack} (ADR 0049). The kernel
 * prints IPv6 tuples in full, uncompressed form ({@code dst=fd01:0000:...:0001}); the reference matched the
 * compressed form and so never counted anything (discovery-gateway.md §4.3 [REF-BUG]). Each entry's first
 * {@code dst=} is its original direction's destination. TCP entries in TIME_WAIT or CLOSE are finished connections
 * the kernel keeps for up to two minutes; they are not counted, so a closed connection does not hold a mapping.
 */
final class Conntrack {
    private final Path file;

    /** @param file {@code /proc/net/nf_conntrack} */
    Conntrack(final Path file) {
        this.file = file;
    }

    /**
     * @return entries per original destination in full text form; null when the file cannot be read (a kernel
     *         without {@code CONFIG_NF_CONNTRACK_PROCFS}, or conntrack not loaded)
     */
    Map<String, Integer> countByOriginalDestination() {
        final Map<String, Integer> out = new HashMap<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String line;
            while ((line = r.readLine()) != null) {
                final int at = line.indexOf(" dst=");
                if (at < 0 || line.contains(" TIME_WAIT src=") || line.contains(" CLOSE src=")) {
                    continue;
                }
                final int end = line.indexOf(' ', at + 5);
                out.merge(line.substring(at + 5, end < 0 ? line.length() : end), 1, Integer::sum);
            }
        } catch (final IOException e) {
            return null;
        }
        return out;
    }

    /**
     * @param counts the output of {@link #countByOriginalDestination()}, or null
     * @param vip    a virtual address
     * @return its entries, or -1 when counts is null
     */
    static int sessions(final Map<String, Integer> counts, final Inet6Address vip) {
        return counts == null ? -1 : counts.getOrDefault(Addresses.fullText(vip), 0);
    }
}
