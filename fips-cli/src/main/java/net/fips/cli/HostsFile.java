package net.fips.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Peer-name lookup for {@code connect}/{@code disconnect}, as the reference client does it: an argument starting
 * with {@code npub1} is used as is; anything else is looked up in the hosts file ({@code name npub1...} per line,
 * {@code #} comments, names case-insensitive, a later line wins). A name found in neither is sent to the daemon
 * as is, which resolves its config's peer aliases ({@code peers[].alias}) or answers {@code unknown host}: only
 * the daemon knows its config, so that lookup lives there (the reference consults no YAML aliases at all).
 */
final class HostsFile {
    private HostsFile() {
    }

    /**
     * @param file the hosts file
     * @param peer the argument given
     * @return the npub, or empty when the name is not in the file (or the file cannot be read)
     */
    static Optional<String> resolvePeer(final Path file, final String peer) {
        if (peer.startsWith("npub1")) {
            return Optional.of(peer);
        }
        final List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (final IOException e) {
            return Optional.empty();
        }
        final String wanted = peer.toLowerCase(Locale.ROOT);
        String found = null;
        for (final String raw : lines) {
            final String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            final String[] fields = line.split("\\s+");
            if (fields.length == 2 && fields[0].toLowerCase(Locale.ROOT).equals(wanted)
                    && fields[1].startsWith("npub1")) {
                found = fields[1];
            }
        }
        return Optional.ofNullable(found);
    }
}
