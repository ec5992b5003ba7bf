package net.fips.control.config;

import java.util.Optional;

/** Maps {@code node.metrics} (our Prometheus endpoint; not a reference key). */
final class MetricsSection {
    private MetricsSection() {
    }

    static NodeConfig.Metrics read(final ConfigReader r) {
        final Optional<String> bind = r.optString("bind");
        final boolean allowNonLoopback = r.bool("allow_non_loopback", false);
        if (bind.isPresent()) {
            final SocketAddresses.HostPort hp = SocketAddresses.parseLiteral(bind.get());
            if (hp == null) {
                r.error("bind", "expected ip:port (an IP literal, port 0-65535), got \"" + bind.get() + "\"");
            } else if (!allowNonLoopback && !SocketAddresses.isLoopback(bind.get())) {
                r.error("bind", "\"" + bind.get() + "\" is not a loopback address; the metrics endpoint has no"
                        + " authentication, set node.metrics.allow_non_loopback: true to serve it beyond this host");
            }
        }
        r.finish();
        return new NodeConfig.Metrics(bind, allowNonLoopback);
    }
}
