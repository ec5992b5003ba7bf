package net.fips.control.config;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import net.fips.control.identity.PeerIdentity;

/**
 * One static peer of {@code peers[]} (operator.md §1.18).
 *
 * @param npub          {@code npub}, bech32 only (the reference rejects hex here)
 * @param identity      the decoded peer identity
 * @param alias         {@code alias}: display name, {@code .fips} hostname and ACL alias
 * @param addresses     {@code addresses[]}, in file order
 * @param connectPolicy {@code connect_policy} (auto_connect)
 * @param autoReconnect {@code auto_reconnect} (true): after a link-dead removal, retry forever with backoff
 * @param viaNostr      {@code via_nostr} (false)
 */
public record PeerConfig(String npub, PeerIdentity identity, Optional<String> alias, List<Address> addresses,
        ConnectPolicy connectPolicy, boolean autoReconnect, boolean viaNostr) {

    /** Default {@code addresses[].priority}. */
    public static final int DEFAULT_PRIORITY = 100;

    /**
     * {@code connect_policy}. Only {@code auto_connect} dials on its own; the reference parses the other two but
     * treats them as "do not auto-connect".
     */
    public enum ConnectPolicy { AUTO_CONNECT, ON_DEMAND, MANUAL }

    /** Checks nullness and freezes the list. */
    public PeerConfig {
        Objects.requireNonNull(npub, "npub");
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(alias, "alias");
        Objects.requireNonNull(connectPolicy, "connectPolicy");
        addresses = List.copyOf(addresses);
    }

    /** @return true when the node should dial this peer by itself */
    public boolean isAutoConnect() {
        return connectPolicy == ConnectPolicy.AUTO_CONNECT;
    }

    /** @return the addresses, lowest priority value first (stable for equal priorities) */
    public List<Address> addressesByPriority() {
        return addresses.stream().sorted(Comparator.comparingInt(Address::priority)).toList();
    }

    /**
     * One entry of {@code addresses[]}.
     *
     * @param transport {@code transport}: udp, tcp, ethernet, tor, nym or ble, or [master] {@code udp/<instance>}
     * @param addr      {@code addr}: {@code host:port} (a DNS name is allowed), {@code iface/mac}, ...
     * @param priority  {@code priority} (100); lower is tried first
     */
    public record Address(String transport, String addr, int priority) {
        /** Checks nullness. */
        public Address {
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(addr, "addr");
        }

        /** @return the transport type: {@code udp} for {@code udp/<instance>} */
        public String kind() {
            return kindOf(transport);
        }

        /** @return the named transport instance of {@code udp/<instance>}, else empty (any instance of the kind) */
        public Optional<String> instance() {
            return instanceOf(transport);
        }

        static String kindOf(final String transport) {
            final int slash = transport.indexOf('/');
            return slash < 0 ? transport : transport.substring(0, slash);
        }

        static Optional<String> instanceOf(final String transport) {
            final int slash = transport.indexOf('/');
            return slash < 0 ? Optional.empty() : Optional.of(transport.substring(slash + 1));
        }
    }
}
