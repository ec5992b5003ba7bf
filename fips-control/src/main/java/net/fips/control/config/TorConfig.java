package net.fips.control.config;

import java.util.Objects;
import java.util.Optional;
import java.util.Locale;

/**
 * One {@code transports.tor} instance (operator.md §1.15, transports.md §6). Defaults are the reference's.
 *
 * @param name                  instance name when {@code transports.tor} is a map of named instances, else empty
 * @param mode                  {@code mode}
 * @param socks5Addr            {@code socks5_addr}, {@code host:port} of Tor's SocksPort
 * @param connectTimeoutMs      {@code connect_timeout_ms}: the budget of one SOCKS5 dial
 * @param mtu                   {@code mtu}
 * @param controlAddr           {@code control_addr} as configured (a Unix socket path or {@code host:port}); see
 *                              {@link #effectiveControlAddr()}
 * @param controlAuth           {@code control_auth}: {@code cookie}, {@code cookie:/path} or {@code password:secret}
 * @param cookiePath            {@code cookie_path}, used by {@code control_auth: cookie}
 * @param maxInboundConnections {@code max_inbound_connections}: the cap on connections Tor forwards to us
 * @param directoryService      {@code directory_service} (directory mode only; defaults filled in when absent)
 * @param advertiseOnNostr      {@code advertise_on_nostr}
 * @param advertisedPort        {@code advertised_port}: the onion's virtual port put in adverts
 */
public record TorConfig(Optional<String> name, Mode mode, String socks5Addr, long connectTimeoutMs, int mtu,
        Optional<String> controlAddr, String controlAuth, String cookiePath, int maxInboundConnections,
        DirectoryService directoryService, boolean advertiseOnNostr, int advertisedPort) {

    /** {@code transports.tor.mode}. */
    public enum Mode {
        /** Outbound only, through the SOCKS5 proxy. */
        SOCKS5,
        /**
         * Outbound through SOCKS5; the control port is authenticated at start (failure = start failure) and monitored.
         */
        CONTROL_PORT,
        /** Outbound through SOCKS5; inbound from Tor's HiddenServiceDir onion service to a local listener. */
        DIRECTORY;

        /** @return the config spelling */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * {@code transports.tor.directory_service}.
     *
     * @param hostnameFile {@code hostname_file}: where Tor writes the onion name
     * @param bindAddr     {@code bind_addr}: the local listener, the target of torrc's {@code HiddenServicePort}
     */
    public record DirectoryService(String hostnameFile, String bindAddr) {
        /** Default hostname file. */
        public static final String DEFAULT_HOSTNAME_FILE = "/var/lib/tor/fips_onion_service/hostname";
        /** Default listener. */
        public static final String DEFAULT_BIND_ADDR = "127.0.0.1:8443";
        /** Every default. */
        public static final DirectoryService DEFAULTS = new DirectoryService(DEFAULT_HOSTNAME_FILE,
                DEFAULT_BIND_ADDR);

        /** Checks nullness. */
        public DirectoryService {
            Objects.requireNonNull(hostnameFile, "hostnameFile");
            Objects.requireNonNull(bindAddr, "bindAddr");
        }
    }

    /** Default SOCKS5 proxy: Tor's SocksPort. */
    public static final String DEFAULT_SOCKS5_ADDR = "127.0.0.1:9050";
    /** Default dial budget: 120 s (circuits take long). */
    public static final long DEFAULT_CONNECT_TIMEOUT_MS = 120_000;
    /** Default MTU, as TCP. */
    public static final int DEFAULT_MTU = 1400;
    /** Default control port (Debian's control socket). */
    public static final String DEFAULT_CONTROL_ADDR = "/run/tor/control";
    /** Default authentication. */
    public static final String DEFAULT_CONTROL_AUTH = "cookie";
    /** Default cookie file (Debian). */
    public static final String DEFAULT_COOKIE_PATH = "/var/run/tor/control.authcookie";
    /** Default inbound cap. */
    public static final int DEFAULT_MAX_INBOUND = 64;
    /** Default advertised onion port. */
    public static final int DEFAULT_ADVERTISED_PORT = 443;
    /** An unnamed socks5-mode instance with every default. */
    public static final TorConfig DEFAULTS = new TorConfig(Optional.empty(), Mode.SOCKS5, DEFAULT_SOCKS5_ADDR,
            DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MTU, Optional.empty(), DEFAULT_CONTROL_AUTH, DEFAULT_COOKIE_PATH,
            DEFAULT_MAX_INBOUND, DirectoryService.DEFAULTS, false, DEFAULT_ADVERTISED_PORT);

    /** Checks nullness. */
    public TorConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(socks5Addr, "socks5Addr");
        Objects.requireNonNull(controlAddr, "controlAddr");
        Objects.requireNonNull(controlAuth, "controlAuth");
        Objects.requireNonNull(cookiePath, "cookiePath");
        Objects.requireNonNull(directoryService, "directoryService");
    }

    /** @return the control port to use: the configured one or {@value #DEFAULT_CONTROL_ADDR} */
    public String effectiveControlAddr() {
        return controlAddr.orElse(DEFAULT_CONTROL_ADDR);
    }

    /**
     * @return whether the node talks to the control port: always in control_port mode, in directory mode only
     *         when {@code control_addr} is set (monitoring, failures non-fatal), never in socks5 mode
     */
    public boolean usesControlPort() {
        return mode == Mode.CONTROL_PORT || (mode == Mode.DIRECTORY && controlAddr.isPresent());
    }

    /** @return the name used in logs and {@code show_transports}: the instance name or "tor" */
    public String displayName() {
        return name.orElse("tor");
    }
}
