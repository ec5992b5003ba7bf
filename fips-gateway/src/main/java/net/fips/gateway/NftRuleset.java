package net.fips.gateway;

import java.net.Inet6Address;
import java.util.List;
import java.util.Objects;

import net.fips.control.config.GatewayConfig;

/**
 * The text of the gateway's nft table (discovery-gateway.md §4.4), rebuilt whole on every change: the reference's
 * {@code prerouting} and {@code postrouting} NAT chains, rule for rule and in its order, plus a {@code traffic}
 * chain of our own (ADR 0049) with one counter per mapping that counts the packets of every connection whose
 * original destination is the mapping's virtual address, both directions. One rule per line: nft 1.0.6 rejects a
 * {@code masquerade} followed by {@code ;} or <code>}</code> on the same line.
 */
public final class NftRuleset {
    /** The table's family and name. */
    public static final String TABLE = "inet fips_gateway";
    /** Our counter chain. */
    public static final String TRAFFIC_CHAIN = "traffic";

    /**
     * One mapping's addresses.
     *
     * @param virtualIp the pool address
     * @param meshAddr  the mesh address
     */
    public record Nat(Inet6Address virtualIp, Inet6Address meshAddr) {
        /** Checks nullness. */
        public Nat {
            Objects.requireNonNull(virtualIp, "virtualIp");
            Objects.requireNonNull(meshAddr, "meshAddr");
        }
    }

    private NftRuleset() {
    }

    /**
     * @param tun      the daemon's TUN interface ({@code fips0})
     * @param lan      the LAN interface
     * @param mappings the mappings, in the order their rules are written
     * @param forwards the inbound port forwards
     * @return the table definition
     */
    public static String table(final String tun, final String lan, final List<Nat> mappings,
            final List<GatewayConfig.PortForward> forwards) {
        final StringBuilder sb = new StringBuilder(512 + 200 * mappings.size());
        sb.append("table ").append(TABLE).append(" {\n");
        sb.append("  chain prerouting {\n");
        sb.append("    type nat hook prerouting priority -100; policy accept;\n");
        for (final Nat m : mappings) {
            sb.append("    meta nfproto ipv6 ip6 daddr ").append(Addresses.text(m.virtualIp()))
                    .append(" dnat ip6 to ").append(Addresses.text(m.meshAddr())).append('\n');
        }
        for (final GatewayConfig.PortForward f : forwards) {
            sb.append("    iifname ").append(quote(tun)).append(" meta nfproto ipv6 meta l4proto ")
                    .append(f.proto().text()).append(" th dport ").append(f.listenPort()).append(" dnat ip6 to [")
                    .append(Addresses.text((Inet6Address) f.target().getAddress())).append("]:")
                    .append(f.target().getPort()).append('\n');
        }
        sb.append("  }\n");
        sb.append("  chain postrouting {\n");
        sb.append("    type nat hook postrouting priority 100; policy accept;\n");
        sb.append("    oifname ").append(quote(tun)).append(" masquerade\n");
        for (final Nat m : mappings) {
            sb.append("    meta nfproto ipv6 ip6 saddr ").append(Addresses.text(m.meshAddr()))
                    .append(" snat ip6 to ").append(Addresses.text(m.virtualIp())).append('\n');
        }
        if (!forwards.isEmpty()) {
            sb.append("    iifname ").append(quote(tun)).append(" oifname ").append(quote(lan))
                    .append(" meta nfproto ipv6 masquerade\n");
        }
        sb.append("  }\n");
        sb.append("  chain ").append(TRAFFIC_CHAIN).append(" {\n");
        sb.append("    type filter hook forward priority 0; policy accept;\n");
        for (final Nat m : mappings) {
            final String vip = Addresses.text(m.virtualIp());
            sb.append("    ct original ip6 daddr ").append(vip).append(" counter comment ").append(quote(vip))
                    .append('\n');
        }
        sb.append("  }\n");
        sb.append("}\n");
        return sb.toString();
    }

    /**
     * @param table the output of {@link #table}
     * @return one nft transaction that replaces the table whole (created first so the delete cannot fail)
     */
    public static String replace(final String table) {
        return "add table " + TABLE + "\ndelete table " + TABLE + "\n" + table;
    }

    /** An interface name in nft quotes; names with a quote or backslash cannot reach here (the kernel forbids them). */
    static String quote(final String name) {
        if (name.indexOf('"') >= 0 || name.indexOf('\\') >= 0 || name.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("bad interface name: " + name);
        }
        return "\"" + name + "\"";
    }
}
