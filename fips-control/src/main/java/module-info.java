/**
 * The FIPS control plane: identity, Noise handshakes, link and session state, config and the control socket.
 * It hands keys and routes to the data plane and never sits on the packet path.
 */
module net.fips.control {
    requires transitive net.fips.dataplane;
    // libsecp256k1 through FFM (net.fips.ffm.secp256k1): the default secp256k1 backend of the crypto package.
    requires net.fips.ffm;
    // Secp256k1's public methods take and return BouncyCastle curve points (the fallback backend).
    requires transitive org.bouncycastle.provider;
    requires transitive com.fasterxml.jackson.databind;
    requires org.yaml.snakeyaml;
    // The Prometheus endpoint (node.metrics): the client's data model and its JDK-HttpServer exporter, both
    // automatic modules (Automatic-Module-Name in their manifests); the exporter runs on jdk.httpserver.
    requires io.prometheus.metrics.model;
    requires io.prometheus.metrics.exporter.httpserver;
    requires jdk.httpserver;
    // Nostr relays over WebSocket (net.fips.control.nostr, discovery-gateway.md §1.6).
    requires transitive java.net.http;
    // BlueZ over D-Bus (transports.ble): dbus-java and its JDK unix-socket transport. The transport module is
    // found by ServiceLoader; requiring it makes it (and the jdk.net it needs) part of the graph jlink reads.
    requires org.freedesktop.dbus;
    requires org.freedesktop.dbus.transport.jre;
    // mDNS for LAN discovery (node.discovery.lan): JmDNS, an automatic module.
    requires javax.jmdns;

    exports net.fips.control.crypto;
    exports net.fips.control.noise;
    exports net.fips.control.identity;
    exports net.fips.control.ctl;

    // Jackson serialises the control snapshot records reflectively.
    opens net.fips.control.ctl to com.fasterxml.jackson.databind;
    exports net.fips.control.config;
    exports net.fips.control.acl;
    exports net.fips.control.link;
    exports net.fips.control.node;
    exports net.fips.control.tree;
    exports net.fips.control.bloom;
    exports net.fips.control.discovery;
    exports net.fips.control.mesh;
    exports net.fips.control.session;
    exports net.fips.control.mmp;
    exports net.fips.control.dns;
    exports net.fips.control.metrics;
    exports net.fips.control.ethernet;
    exports net.fips.control.ble;
    // dbus-java builds proxies of the BlueZ interfaces and calls the exported advertisement reflectively.
    exports net.fips.control.ble.dbus to org.freedesktop.dbus;
    opens net.fips.control.ble.dbus to org.freedesktop.dbus;
    exports net.fips.control.tor;
    exports net.fips.control.nostr;
    exports net.fips.control.nat;

}
