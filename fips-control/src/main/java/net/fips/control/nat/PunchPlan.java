package net.fips.control.nat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which addresses a punch probes, in which order (discovery-gateway.md §2.4), from our local candidates and
 * reflexive address and the peer's: reflexive to reflexive first, then LAN pairs (the same first three IPv4
 * components), then each side's locals against the other's reflexive address. Addresses are the offers' strings,
 * {@code ip:port} or {@code [ipv6]:port}.
 */
public final class PunchPlan {

    /** Why a pair of addresses is in the plan. */
    public enum Kind {
        /** Our reflexive address to theirs. */
        REFLEXIVE,
        /** A local address of ours to one of theirs on what looks like the same IPv4 /24. */
        LAN,
        /** A local address on one side, the reflexive address on the other. */
        MIXED
    }

    /**
     * One planned pair.
     *
     * @param kind   why it is planned
     * @param local  our address of the pair
     * @param target the peer's address we probe
     */
    public record Entry(Kind kind, String local, String target) {
    }

    private PunchPlan() {
    }

    /**
     * @param ourLocals    our local candidates (empty unless local candidates are shared)
     * @param ourReflexive our reflexive address, or null when STUN failed
     * @param theirLocals  the peer's local candidates
     * @param theirReflex  the peer's reflexive address, or null
     * @return the plan in probing order, identical entries once
     */
    public static List<Entry> plan(final List<String> ourLocals, final String ourReflexive,
            final List<String> theirLocals, final String theirReflex) {
        final Set<Entry> plan = new LinkedHashSet<>();
        if (ourReflexive != null && theirReflex != null) {
            plan.add(new Entry(Kind.REFLEXIVE, ourReflexive, theirReflex));
        }
        for (final String l : ourLocals) {
            for (final String x : theirLocals) {
                if (sameIpv4Slash24(l, x)) {
                    plan.add(new Entry(Kind.LAN, l, x));
                }
            }
        }
        if (theirReflex != null) {
            for (final String l : ourLocals) {
                plan.add(new Entry(Kind.MIXED, l, theirReflex));
            }
        }
        if (ourReflexive != null) {
            for (final String x : theirLocals) {
                plan.add(new Entry(Kind.MIXED, ourReflexive, x));
            }
        }
        return List.copyOf(plan);
    }

    /**
     * @param plan a plan
     * @return its targets as socket addresses, each once, in plan order
     * @throws PunchFailure {@code invalid-remote-ip} when a target is not an {@code ip:port} literal;
     *                      {@code no-punch-targets} when the plan is empty
     */
    public static List<InetSocketAddress> remotes(final List<Entry> plan) throws PunchFailure {
        final Set<InetSocketAddress> out = new LinkedHashSet<>();
        for (final Entry e : plan) {
            final InetSocketAddress a = parse(e.target());
            if (a == null) {
                throw new PunchFailure("invalid-remote-ip", "not an ip:port: " + e.target());
            }
            out.add(a);
        }
        if (out.isEmpty()) {
            throw new PunchFailure("no-punch-targets", "no address to probe on either side");
        }
        return new ArrayList<>(out);
    }

    /**
     * @param text {@code a.b.c.d:port} or {@code [v6]:port}, literals only (never a name lookup)
     * @return the address, or null when the text is not one
     */
    public static InetSocketAddress parse(final String text) {
        final int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            return null;
        }
        String host = text.substring(0, colon);
        final String portText = text.substring(colon + 1);
        if (!portText.chars().allMatch(c -> c >= '0' && c <= '9') || portText.length() > 5) {
            return null;
        }
        final int port = Integer.parseInt(portText);
        if (port > 0xffff) {
            return null;
        }
        final boolean bracketed = host.startsWith("[") && host.endsWith("]");
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.contains(":") != bracketed || host.isEmpty()
                || !bracketed && !host.matches("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}")) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.ofLiteral(host), port);
        } catch (final IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean sameIpv4Slash24(final String a, final String b) {
        final String pa = firstThreeComponents(a);
        return pa != null && pa.equals(firstThreeComponents(b));
    }

    private static String firstThreeComponents(final String address) {
        final int colon = address.lastIndexOf(':');
        final String host = colon < 0 ? address : address.substring(0, colon);
        if (host.contains(":") || host.startsWith("[")) {
            return null;
        }
        final String[] parts = host.split("\\.", -1);
        return parts.length == 4 ? parts[0] + "." + parts[1] + "." + parts[2] : null;
    }
}
