package net.fips.control.ctl;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.io.File;
import java.util.Locale;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.identity.FipsAddress;

/**
 * {@code show_listening_sockets}: the IPv6 TCP listeners and unconnected UDP sockets on this host that fips0 can
 * reach (bound to {@code ::} or to the node's own fd00::/8 address), read from {@code /proc/net/tcp6} and
 * {@code /proc/net/udp6}, each with its owning process where {@code /proc/<pid>/fd} is readable and the state of
 * the {@code inet fips} nftables table.
 *
 * <p>IPv4 sockets ({@code /proc/net/tcp}, {@code /proc/net/udp}) are deliberately not listed: fips0 carries IPv6
 * only, so no IPv4 socket can be reached over the mesh (the reference skips them for the same reason), and
 * neither do IPv4-mapped binds in the v6 tables.
 *
 * <p>Firewall: when {@code nft} is not installed there is no {@code inet fips} table ({@code no_firewall}); when
 * {@code nft -j list table inet fips} says the table does not exist, likewise; when it lists the table, the
 * firewall is active and each socket's filter is what {@link NftInbound} makes of the inbound chain
 * ({@code accept}, {@code drop} or {@code unknown}); when nft fails otherwise (no permission, no answer within
 * {@value #NFT_TIMEOUT_MS} ms),
 * {@code firewall_active} is null and every filter {@code unknown}. The nft probe never blocks longer than that
 * timeout and its answer is reused for {@value #NFT_CACHE_MS} ms, so a once-a-second poller spawns few processes.
 */
public final class ListeningSockets {
    /** Upper bound on one {@code nft} run; the process is killed after it. */
    static final long NFT_TIMEOUT_MS = 2_000;
    /** How long an nft answer is reused. */
    static final long NFT_CACHE_MS = 5_000;
    private static final String TCP_LISTEN = "0A";

    private static volatile Firewall cached;
    private static volatile long cachedAtNanos;

    private ListeningSockets() {
    }

    /** Transport protocol of a socket row. */
    public enum Proto {
        /** {@code /proc/net/tcp6}, LISTEN state only. */
        TCP,
        /** {@code /proc/net/udp6}, sockets with a wildcard remote (not connected). */
        UDP;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The {@code inet fips} table as seen by nft.
     *
     * @param active  true, false, or null when it could not be determined
     * @param inbound the table's inbound chain when it was listed and parsed, else null
     */
    record Firewall(Boolean active, NftInbound inbound) {
        /** No {@code inet fips} table. */
        static final Firewall NONE = new Firewall(false, null);
        /** nft could not tell. */
        static final Firewall UNKNOWN = new Firewall(null, null);

        /**
         * @param proto {@code tcp} or {@code udp}
         * @param port  the port
         * @return {@code no_firewall}, {@code accept}, {@code drop} or {@code unknown}
         */
        String filter(final String proto, final int port) {
            if (Boolean.FALSE.equals(active)) {
                return "no_firewall";
            }
            return active == null || inbound == null ? "unknown" : inbound.classify(proto, port);
        }
    }

    /**
     * One socket reachable from fips0.
     *
     * @param proto        tcp or udp
     * @param localAddr    16-byte bound address
     * @param port         local port
     * @param inode        socket inode (to find the owner)
     * @param wildcardBind bound to {@code ::} rather than the fips0 address
     */
    public record Socket(Proto proto, byte[] localAddr, int port, long inode, boolean wildcardBind) {
    }

    /** Owner of a socket inode. */
    record Owner(long pid, String process) {
    }

    /**
     * Parses the text of {@code /proc/net/tcp6} or {@code /proc/net/udp6} and keeps the rows fips0 can reach.
     * Malformed lines are skipped.
     *
     * @param text  the file's text, header line included
     * @param proto which file it is
     * @param fips0 the node's 16-byte fd00::/8 address
     * @param order byte order of the 32-bit words the kernel printed (the host's)
     * @return the rows in file order
     */
    public static List<Socket> parseProcNet6(final String text, final Proto proto, final byte[] fips0,
                                             final ByteOrder order) {
        final List<Socket> out = new ArrayList<>();
        for (final String raw : text.split("\n")) {
            final String[] f = raw.strip().split("\\s+");
            // sl local rem st tx:rx tr:when retr uid timeout inode ...
            if (f.length < 10 || !f[0].endsWith(":") || f[0].equals("sl")) {
                continue;
            }
            final byte[] local = addr6(f[1], order);
            final byte[] remote = addr6(f[2], order);
            if (local == null || remote == null) {
                continue;
            }
            final int port = port(f[1]);
            final long inode;
            try {
                inode = Long.parseLong(f[9]);
            } catch (final NumberFormatException e) {
                continue;
            }
            if (port < 0) {
                continue;
            }
            if (proto == Proto.TCP ? !TCP_LISTEN.equalsIgnoreCase(f[3]) : !isZero(remote) || port(f[2]) != 0) {
                continue;
            }
            final boolean wildcard = isZero(local);
            if (!wildcard && !Arrays.equals(local, fips0)) {
                continue;
            }
            out.add(new Socket(proto, local, port, inode, wildcard));
        }
        return out;
    }

    /**
     * Renders the {@code show_listening_sockets} data from parsed rows. Pure: the golden test uses it.
     *
     * @param fips0    the node's address
     * @param sockets  rows from {@link #parseProcNet6}
     * @param owners   socket inode to (pid, process name)
     * @param firewall the nft state
     * @return {@code fips0_addr, firewall_active, sockets[]}, sorted by proto, port, pid
     */
    static ObjectNode render(final byte[] fips0, final List<Socket> sockets, final Map<Long, Owner> owners,
                             final Firewall firewall) {
        final List<Socket> sorted = new ArrayList<>(sockets);
        sorted.sort(Comparator.comparing((Socket s) -> s.proto().wire()).thenComparingInt(Socket::port)
                .thenComparingLong(s -> {
                    final Owner o = owners.get(s.inode());
                    return o == null ? Long.MAX_VALUE : o.pid();
                }));
        final ObjectNode data = ControlJson.MAPPER.createObjectNode();
        data.put("fips0_addr", FipsAddress.format(fips0));
        if (firewall.active() == null) {
            data.putNull("firewall_active");
        } else {
            data.put("firewall_active", firewall.active());
        }
        final ArrayNode rows = data.putArray("sockets");
        for (final Socket s : sorted) {
            final ObjectNode r = rows.addObject();
            r.put("proto", s.proto().wire());
            r.put("local_addr", FipsAddress.format(s.localAddr()));
            r.put("port", s.port());
            final Owner o = owners.get(s.inode());
            if (o == null) {
                r.putNull("pid");
                r.putNull("process");
            } else {
                r.put("pid", Math.toIntExact(o.pid()));
                r.put("process", o.process());
            }
            r.put("filter", firewall.filter(s.proto().wire(), s.port()));
            r.put("wildcard_bind", s.wildcardBind());
        }
        return data;
    }

    /**
     * Reads this host's state now. On a host without {@code /proc/net} the list is empty.
     *
     * @param fips0 the node's 16-byte fd00::/8 address
     * @return the {@code show_listening_sockets} data
     */
    public static ObjectNode query(final byte[] fips0) {
        final List<Socket> sockets = new ArrayList<>();
        sockets.addAll(parseProcNet6(readOrEmpty(Path.of("/proc/net/tcp6")), Proto.TCP, fips0,
                ByteOrder.nativeOrder()));
        sockets.addAll(parseProcNet6(readOrEmpty(Path.of("/proc/net/udp6")), Proto.UDP, fips0,
                ByteOrder.nativeOrder()));
        return render(fips0, sockets, sockets.isEmpty() ? Map.of() : owners(Path.of("/proc")), firewall());
    }

    /** Socket inode to owner, from every readable {@code /proc/<pid>/fd}; unreadable processes are skipped. */
    static Map<Long, Owner> owners(final Path proc) {
        final Map<Long, Owner> map = new HashMap<>();
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, p -> p.getFileName().toString()
                .chars().allMatch(Character::isDigit))) {
            for (final Path pidDir : pids) {
                final long pid = Long.parseLong(pidDir.getFileName().toString());
                String comm = null;
                try (DirectoryStream<Path> fds = Files.newDirectoryStream(pidDir.resolve("fd"))) {
                    for (final Path fd : fds) {
                        final String target;
                        try {
                            target = Files.readSymbolicLink(fd).toString();
                        } catch (final IOException | UnsupportedOperationException e) {
                            continue;
                        }
                        if (target.startsWith("socket:[") && target.endsWith("]")) {
                            if (comm == null) {
                                comm = readOrEmpty(pidDir.resolve("comm")).strip();
                            }
                            try {
                                map.put(Long.parseLong(target.substring(8, target.length() - 1)),
                                        new Owner(pid, comm));
                            } catch (final NumberFormatException e) {
                                // not a socket inode
                            }
                        }
                    }
                } catch (final IOException | SecurityException e) {
                    // another user's process, or gone
                }
            }
        } catch (final IOException e) {
            return map;
        }
        return map;
    }

    /** The nft probe, cached for {@value #NFT_CACHE_MS} ms. */
    static Firewall firewall() {
        final Firewall c = cached;
        final long now = System.nanoTime();
        if (c != null && now - cachedAtNanos < TimeUnit.MILLISECONDS.toNanos(NFT_CACHE_MS)) {
            return c;
        }
        final Firewall f = probeNft(List.of("nft", "-j", "list", "table", "inet", "fips"));
        cached = f;
        cachedAtNanos = now;
        return f;
    }

    /**
     * Runs an nft listing with a bounded wait.
     *
     * @param command the command line
     * @return the firewall state it shows
     */
    static Firewall probeNft(final List<String> command) {
        Path out = null;
        Path err = null;
        Process p = null;
        try {
            out = Files.createTempFile("fips-nft", ".json");
            err = Files.createTempFile("fips-nft", ".err");
            p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(NFT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                return Firewall.UNKNOWN;
            }
            if (p.exitValue() == 0) {
                try {
                    return new Firewall(true, NftInbound.parse(ControlJson.MAPPER.readTree(out.toFile())));
                } catch (final IOException | RuntimeException e) {
                    return new Firewall(true, null);
                }
            }
            final String text = Files.readString(err, StandardCharsets.UTF_8);
            return text.contains("No such file or directory") ? Firewall.NONE : Firewall.UNKNOWN;
        } catch (final IOException e) {
            // nft is not installed (or cannot be run): nothing can have loaded the table with it.
            return p == null ? Firewall.NONE : Firewall.UNKNOWN;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return Firewall.UNKNOWN;
        } finally {
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
            for (final Path f : new Path[] {out, err}) {
                if (f != null) {
                    try {
                        Files.deleteIfExists(f);
                    } catch (final IOException e) {
                        // temp file left behind; harmless
                    }
                }
            }
        }
    }

    private static String readOrEmpty(final Path p) {
        try {
            return Files.readString(p, StandardCharsets.US_ASCII);
        } catch (final IOException | SecurityException e) {
            return "";
        }
    }

    /** {@code HHHHHHHH x4:PPPP} (four 32-bit words in {@code order}) to 16 network-order bytes, or null. */
    private static byte[] addr6(final String field, final ByteOrder order) {
        final int colon = field.indexOf(':');
        if (colon != 32) {
            return null;
        }
        final byte[] b = new byte[16];
        try {
            for (int w = 0; w < 4; w++) {
                final int v = (int) Long.parseLong(field.substring(8 * w, 8 * w + 8), 16);
                final int be = order == ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(v) : v;
                b[4 * w] = (byte) (be >>> 24);
                b[4 * w + 1] = (byte) (be >>> 16);
                b[4 * w + 2] = (byte) (be >>> 8);
                b[4 * w + 3] = (byte) be;
            }
        } catch (final NumberFormatException e) {
            return null;
        }
        return b;
    }

    private static int port(final String field) {
        final int colon = field.indexOf(':');
        try {
            final int p = Integer.parseInt(field.substring(colon + 1), 16);
            return p >= 0 && p <= 0xffff ? p : -1;
        } catch (final NumberFormatException | StringIndexOutOfBoundsException e) {
            return -1;
        }
    }

    private static boolean isZero(final byte[] b) {
        for (final byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }
}
