package net.fips.control.tor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Directory mode's onion address (transports.md §6.5 step 1): Tor writes {@code HiddenServiceDir/hostname} (the
 * 62-character v3 name and a newline) at startup; the node reads it, trims it, and refuses to start unless it is
 * non-empty and ends in {@code .onion}.
 */
public final class OnionHostname {
    /** More than any hostname file holds; a bigger file is not one. */
    private static final long MAX_BYTES = 4096;

    private OnionHostname() {
    }

    /**
     * @param hostnameFile {@code directory_service.hostname_file}
     * @return the trimmed onion name, e.g. {@code abc...xyz.onion}
     * @throws IOException naming the file and what is wrong with it
     */
    public static String read(final Path hostnameFile) throws IOException {
        final String text;
        try {
            final byte[] bytes = Files.readAllBytes(hostnameFile);
            if (bytes.length > MAX_BYTES) {
                throw new IOException(bytes.length + " bytes, more than any Tor hostname file");
            }
            text = new String(bytes, StandardCharsets.UTF_8).strip();
        } catch (final IOException e) {
            throw new IOException("failed to read onion hostname from '" + hostnameFile + "': " + e
                    + " (ensure HiddenServiceDir is configured in torrc and Tor has started)", e);
        }
        if (text.isEmpty() || !text.endsWith(".onion")) {
            throw new IOException("invalid onion address in '" + hostnameFile + "': '"
                    + (text.length() > 80 ? text.substring(0, 80) + "..." : text) + "'");
        }
        return text;
    }
}
