package net.fips.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The training run for fipsctl's ahead-of-time cache ({@code -XX:AOTCacheOutput}, JDK 25): the launchers run this
 * once per build (bin/fipsctl) or per install (the package's postinst) so that later calls start with fipsctl's
 * classes already loaded and linked. It plays a daemon on a socket of its own that answers every request with a
 * canned status (or a refusal), and runs the common command lines against it through {@link FipsCtl#run}, as JSON
 * and as tables, so both output paths are in the cache; nothing is printed and nothing outside a temporary
 * directory is touched. Not a command for people; its output is discarded.
 */
public final class CtlTraining {

    private static final String STATUS = """
            {"status":"ok","data":{"version":"training","npub":"npub1training",\
            "node_addr":"00112233445566778899aabbccddeeff",\
            "ipv6_addr":"fd00::1","state":"running","is_leaf_only":false,\
            "peer_count":1,"session_count":0,"link_count":1,\
            "transport_count":1,"connection_count":0,"tun_state":"disabled","tun_name":"-","effective_ipv6_mtu":1203,\
            "control_socket":"/run/fips/control.sock","pid":1,"uptime_secs":12,"estimated_mesh_size":null,\
            "persistent":false,"root":"00112233445566778899aabbccddeeff","is_root":true,\
            "transport_peer_counts":{"udp":1},\
            "srtt_ms":41.25,"sparklines":{"mesh_size":[null,1,2]},"peers":[{"npub":"npub1peer","loss":0.5}]}}
            """;
    private static final String REFUSAL = "{\"status\":\"error\",\"message\":\"training\"}\n";

    private CtlTraining() {
    }

    /**
     * @param args ignored
     * @throws IOException when the temporary socket cannot be made
     * @throws InterruptedException when interrupted while waiting for the stand-in daemon
     */
    public static void main(final String[] args) throws IOException, InterruptedException {
        final Path dir = Files.createTempDirectory("fipsctl-training");
        final Path sock = dir.resolve("control.sock");
        final List<String[]> lines = List.of(
                new String[] {"--json", "show", "status"}, new String[] {"--table", "show", "status"},
                new String[] {"show", "peers"}, new String[] {"--table", "show", "peers"},
                new String[] {"show", "links"}, new String[] {"--table", "show", "sessions"},
                new String[] {"--table", "show", "mmp"}, new String[] {"stats", "list"});
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(sock));
            final Thread daemon = Thread.ofPlatform().daemon().start(() -> answer(server, lines.size()));
            final PrintWriter sink = new PrintWriter(Writer.nullWriter());
            for (final String[] line : lines) {
                final String[] full = new String[line.length + 2];
                full[0] = "--socket";
                full[1] = sock.toString();
                System.arraycopy(line, 0, full, 2, line.length);
                try {
                    FipsCtl.run(full, sink, sink);
                } catch (final RuntimeException e) {
                    // A renderer that does not expect the canned shape still loaded its classes; go on.
                }
            }
            // The picocli path (usage, help) and the no-daemon error path.
            FipsCtl.run(new String[] {"show", "--help"}, sink, sink);
            FipsCtl.run(new String[] {"--socket", dir.resolve("absent.sock").toString(), "show", "status"}, sink,
                    sink);
            daemon.join(5_000);
        } finally {
            Files.deleteIfExists(sock);
            Files.deleteIfExists(dir);
        }
    }

    // Answers n requests: show_status with the canned status, everything else with a refusal.
    private static void answer(final ServerSocketChannel server, final int n) {
        final ByteBuffer in = ByteBuffer.allocate(4096);
        for (int i = 0; i < n; i++) {
            try (SocketChannel c = server.accept()) {
                in.clear();
                while (c.read(in) >= 0 && in.hasRemaining()) {
                    if (in.position() > 0 && in.get(in.position() - 1) == '\n') {
                        break;
                    }
                }
                final String request = new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
                final String reply = request.contains("\"show_status\"") || request.contains("\"show_peers\"")
                        ? STATUS : REFUSAL;
                c.write(ByteBuffer.wrap(reply.getBytes(StandardCharsets.UTF_8)));
            } catch (final IOException e) {
                return;
            }
        }
    }
}
