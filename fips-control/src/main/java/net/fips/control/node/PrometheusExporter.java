package net.fips.control.node;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import net.fips.control.ctl.ControlException;
import net.fips.control.link.LinkCounter;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.mesh.MeshSnapshot;
import net.fips.control.metrics.NodeMetric;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportCounters;

/**
 * The Prometheus/OpenMetrics scrape endpoint ({@code node.metrics.bind}): the Prometheus Java client's
 * {@link HTTPServer} serving {@code /metrics} from a private {@link PrometheusRegistry} with one
 * {@link MultiCollector} that reads, once per scrape, the same published sources the control socket reads (link
 * snapshot, routing snapshot, {@code show_metrics} families, data-plane and transport counters, stats history).
 * Nothing is counted twice and nothing here runs on the control thread or the packet path. A value the node does
 * not measure has no sample (it is left out, never exported as 0). Metric names: docs/metrics.md.
 */
final class PrometheusExporter implements AutoCloseable {
    private final HTTPServer server;

    private PrometheusExporter(final HTTPServer server) {
        this.server = server;
    }

    /**
     * Starts serving.
     *
     * @param node the node to export
     * @param bind address and port (port 0 picks a free one)
     * @return the running endpoint
     * @throws IOException when the port cannot be bound
     */
    static PrometheusExporter start(final Node node, final InetSocketAddress bind) throws IOException {
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new NodeCollector(node));
        final InetAddress addr = bind.getAddress();
        return new PrometheusExporter(HTTPServer.builder().inetAddress(addr).port(bind.getPort()).registry(registry)
                .buildAndStart());
    }

    /** @return the bound port */
    int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
    }

    /** One consistent read of every source per scrape. */
    private static final class NodeCollector implements MultiCollector {
        private static final String[] FAMILIES = {"forwarding", "discovery", "tree", "bloom", "congestion", "errors"};
        private final Node node;

        NodeCollector(final Node node) {
            this.node = node;
        }

        @Override
        public MetricSnapshots collect() {
            final List<MetricSnapshot> out = new ArrayList<>();
            final LinkSnapshot ls = node.linkSnapshot();
            final MeshSnapshot ms = node.meshSnapshot();

            out.add(InfoSnapshot.builder().name("fips").help("Node identity and version.")
                    .dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(Labels.of("npub",
                            node.identity().npub(), "node_addr", node.identity().nodeAddr().toString(), "version",
                            node.options().version())).build()).build());
            out.add(gauge("fips_uptime_seconds", "Seconds since the node started.",
                    node.uptimeNanos() / 1e9, Labels.EMPTY));
            out.add(gauge("fips_peers", "Authenticated peers.", ls.peers().size(), Labels.EMPTY));
            out.add(gauge("fips_pending_dials", "Outbound handshakes waiting for msg2.", ls.pendingOutbound(),
                    Labels.EMPTY));
            if (ms.meshSize() != null) {
                out.add(gauge("fips_mesh_size_estimate", "Estimated mesh size (bloom filter estimate).",
                        ms.meshSize(), Labels.EMPTY));
            }
            out.add(gauge("fips_tree_depth", "Our depth in the spanning tree.", ms.depth(), Labels.EMPTY));
            out.add(gauge("fips_tree_is_root", "1 when this node is the spanning tree's root.", ms.isRoot() ? 1 : 0,
                    Labels.EMPTY));
            final double sessions = node.stats().history().latest(NodeMetric.ACTIVE_SESSIONS);
            if (Double.isFinite(sessions)) {
                out.add(gauge("fips_active_sessions", "Established end-to-end sessions.", sessions, Labels.EMPTY));
            }

            families(out);

            for (final LinkCounter c : LinkCounter.values()) {
                out.add(counter("fips_link_" + c.name().toLowerCase(Locale.ROOT), "Link layer: "
                        + c.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ".", ls.counter(c), Labels.EMPTY));
            }
            for (final DataPlaneCounter c : DataPlaneCounter.values()) {
                out.add(counter("fips_dataplane_" + c.name().toLowerCase(Locale.ROOT), "Data plane: " + c.label() + ".",
                        node.dataPlane().counter(c), Labels.EMPTY));
            }
            transports(out);
            peers(out, ls);
            return new MetricSnapshots(out);
        }

        /** The {@code show_metrics} families, one counter per key with a value. */
        private void families(final List<MetricSnapshot> out) {
            final JsonNode m;
            try {
                m = node.controlApi().showMetrics();
            } catch (final ControlException e) {
                return;
            }
            for (final String family : FAMILIES) {
                for (final Map.Entry<String, JsonNode> e : m.path(family).properties()) {
                    if (e.getValue().isNumber()) {
                        out.add(counter("fips_" + family + "_" + e.getKey(), "show_metrics " + family + "."
                                + e.getKey() + ".", e.getValue().asDouble(), Labels.EMPTY));
                    }
                }
            }
        }

        private void transports(final List<MetricSnapshot> out) {
            final List<Transport> ts = node.transports();
            final CounterSnapshot.Builder pIn = counterFamily("fips_transport_packets_received",
                    "Packets (frames) received by the transport.");
            final CounterSnapshot.Builder bIn = counterFamily("fips_transport_bytes_received",
                    "Bytes received by the transport.");
            final CounterSnapshot.Builder pOut = counterFamily("fips_transport_packets_sent",
                    "Packets (frames) sent by the transport.");
            final CounterSnapshot.Builder bOut = counterFamily("fips_transport_bytes_sent",
                    "Bytes sent by the transport.");
            final CounterSnapshot.Builder sendErr = counterFamily("fips_transport_send_errors",
                    "Transport send errors.");
            final CounterSnapshot.Builder recvErr = counterFamily("fips_transport_recv_errors",
                    "Transport receive errors.");
            final CounterSnapshot.Builder drops = counterFamily("fips_transport_kernel_drops",
                    "Datagrams the kernel dropped on the receive queue (SO_RXQ_OVFL).");
            final CounterSnapshot.Builder mtu = counterFamily("fips_transport_mtu_exceeded",
                    "Sends refused for exceeding the transport MTU.");
            for (int i = 0; i < ts.size(); i++) {
                final Transport t = ts.get(i);
                final Map<String, Long> c = t.stats();
                final Labels l = Labels.of("transport", Integer.toString(i), "type", t.typeName());
                // A counter the transport type does not have is left out, never reported as 0.
                addIfMeasured(pIn, TransportCounters.packetsRecv(c), l);
                addIfMeasured(bIn, TransportCounters.bytesRecv(c), l);
                addIfMeasured(pOut, TransportCounters.packetsSent(c), l);
                addIfMeasured(bOut, TransportCounters.bytesSent(c), l);
                addIfMeasured(sendErr, TransportCounters.get(c, "send_errors", null), l);
                addIfMeasured(recvErr, TransportCounters.get(c, "recv_errors", null), l);
                if (t.kernelDrops().isPresent()) {
                    drops.dataPoint(point(t.kernelDrops().getAsLong(), l));
                }
                addIfMeasured(mtu, TransportCounters.get(c, "mtu_exceeded", null), l);
            }
            for (final CounterSnapshot.Builder b : List.of(pIn, bIn, pOut, bOut, sendErr, recvErr, drops, mtu)) {
                out.add(b.build());
            }
        }

        private void addIfMeasured(final CounterSnapshot.Builder family, final long value, final Labels l) {
            if (value >= 0) {
                family.dataPoint(point(value, l));
            }
        }

        private void peers(final List<MetricSnapshot> out, final LinkSnapshot ls) {
            final CounterSnapshot.Builder pIn = counterFamily("fips_peer_packets_received",
                    "Authenticated frames received from the peer on its current link.");
            final CounterSnapshot.Builder bIn = counterFamily("fips_peer_bytes_received",
                    "Bytes of authenticated frames received from the peer on its current link.");
            final CounterSnapshot.Builder pOut = counterFamily("fips_peer_packets_sent",
                    "Frames sent to the peer on its current link.");
            final CounterSnapshot.Builder bOut = counterFamily("fips_peer_bytes_sent",
                    "Bytes of frames sent to the peer on its current link.");
            final CounterSnapshot.Builder replay = counterFamily("fips_peer_replay_drops",
                    "Frames from the peer the replay window refused (current link).");
            final CounterSnapshot.Builder decrypt = counterFamily("fips_peer_decrypt_failures",
                    "Frames from the peer that failed authentication (current link).");
            final CounterSnapshot.Builder rekeys = counterFamily("fips_peer_rekeys",
                    "Rekey cutovers on the peer's current link.");
            final CounterSnapshot.Builder restarts = counterFamily("fips_peer_restarts",
                    "Restarts of the peer detected since this node started.");
            final GaugeSnapshot.Builder srtt = GaugeSnapshot.builder().name("fips_peer_srtt_seconds")
                    .help("MMP smoothed round-trip time (no sample before the first measurement).");
            final GaugeSnapshot.Builder run = GaugeSnapshot.builder().name("fips_peer_consecutive_decrypt_failures")
                    .help("Frames from the peer that failed authentication in a row, now.");
            for (final PeerSnapshot p : ls.peers()) {
                final String alias = node.displayNames().get(p.npub());
                final Labels l = Labels.of("peer", p.npub(), "node_addr", p.nodeAddr(), "name",
                        alias != null ? alias : "");
                pIn.dataPoint(point(p.packetsIn(), l));
                bIn.dataPoint(point(p.bytesIn(), l));
                pOut.dataPoint(point(p.packetsOut(), l));
                bOut.dataPoint(point(p.bytesOut(), l));
                replay.dataPoint(point(p.replayDrops(), l));
                decrypt.dataPoint(point(p.decryptFailures(), l));
                rekeys.dataPoint(point(p.rekeys(), l));
                restarts.dataPoint(point(p.restarts(), l));
                if (p.srttMicros() >= 0) {
                    srtt.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(p.srttMicros() / 1e6)
                            .labels(l).build());
                }
                run.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(p.consecutiveDecryptFailures())
                        .labels(l).build());
            }
            for (final CounterSnapshot.Builder b : List.of(pIn, bIn, pOut, bOut, replay, decrypt, rekeys, restarts)) {
                out.add(b.build());
            }
            out.add(srtt.build());
            out.add(run.build());
        }

        private static CounterSnapshot.Builder counterFamily(final String name, final String help) {
            return CounterSnapshot.builder().name(name).help(help);
        }

        private static CounterSnapshot.CounterDataPointSnapshot point(final double v, final Labels l) {
            return CounterSnapshot.CounterDataPointSnapshot.builder().value(v).labels(l).build();
        }

        private static MetricSnapshot counter(final String name, final String help, final double v, final Labels l) {
            return counterFamily(name, help).dataPoint(point(v, l)).build();
        }

        private static MetricSnapshot gauge(final String name, final String help, final double v, final Labels l) {
            return GaugeSnapshot.builder().name(name).help(help)
                    .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(v).labels(l).build()).build();
        }
    }
}
