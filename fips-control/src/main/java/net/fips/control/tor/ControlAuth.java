package net.fips.control.tor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Objects;

/**
 * How to authenticate to the Tor control port, from {@code transports.tor.control_auth} (transports.md §6.6):
 * {@code cookie} (the file at {@code cookie_path}), {@code cookie:/path}, or {@code password:secret}.
 */
public sealed interface ControlAuth permits ControlAuth.Cookie, ControlAuth.Password {
    /** The cookie file's size: 32 raw bytes. */
    int COOKIE_BYTES = 32;

    /**
     * Cookie authentication.
     *
     * @param path the cookie file
     */
    record Cookie(Path path) implements ControlAuth {
        /** Checks nullness. */
        public Cookie {
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String command() throws TorControlException {
            final byte[] cookie;
            try {
                cookie = Files.readAllBytes(path);
            } catch (final IOException e) {
                throw new TorControlException(TorControlException.Kind.AUTH_FAILED,
                        "failed to read cookie file '" + path + "': " + e.getMessage(), e);
            }
            if (cookie.length != COOKIE_BYTES) {
                throw new TorControlException(TorControlException.Kind.AUTH_FAILED, "cookie file '" + path
                        + "' has " + cookie.length + " bytes, expected " + COOKIE_BYTES);
            }
            return "AUTHENTICATE " + HexFormat.of().formatHex(cookie) + "\r\n";
        }

        @Override
        public String toString() {
            return "cookie:" + path;
        }
    }

    /**
     * Password authentication ({@code HashedControlPassword} in torrc).
     *
     * @param password the password
     */
    record Password(String password) implements ControlAuth {
        /** Checks nullness. */
        public Password {
            Objects.requireNonNull(password, "password");
        }

        @Override
        public String command() {
            return "AUTHENTICATE \"" + password.replace("\\", "\\\\").replace("\"", "\\\"") + "\"\r\n";
        }

        @Override
        public String toString() {
            return "password:<redacted>";
        }
    }

    /**
     * @return the AUTHENTICATE command line, CRLF included
     * @throws TorControlException ({@link TorControlException.Kind#AUTH_FAILED}) when a cookie file is unusable
     */
    String command() throws TorControlException;

    /**
     * Parses the config form.
     *
     * @param auth              {@code control_auth}
     * @param defaultCookiePath {@code cookie_path}, used by plain {@code cookie}
     * @return the method
     * @throws IllegalArgumentException naming the accepted forms
     */
    static ControlAuth parse(final String auth, final String defaultCookiePath) {
        if (auth.equals("cookie")) {
            return new Cookie(Path.of(defaultCookiePath));
        }
        if (auth.startsWith("cookie:")) {
            return new Cookie(Path.of(auth.substring("cookie:".length())));
        }
        if (auth.startsWith("password:")) {
            return new Password(auth.substring("password:".length()));
        }
        throw new IllegalArgumentException("expected cookie, cookie:/path or password:secret, got \""
                + (auth.length() > 40 ? auth.substring(0, 40) + "..." : auth) + "\"");
    }
}
