/**
 * The FIPS data plane: off-heap packet pool, transports, AEAD and wire flyweights. It takes commands
 * (install/retire keys, add transports) and reports events through one narrow interface, and never calls
 * the control plane.
 */
module net.fips.dataplane {
    requires transitive net.fips.ffm;
    requires jdk.net;

    exports net.fips.dataplane;
    exports net.fips.dataplane.crypto;
    exports net.fips.dataplane.wire;
    exports net.fips.dataplane.udp;
    exports net.fips.dataplane.transport;
    exports net.fips.dataplane.tcp;
    exports net.fips.dataplane.ethernet;
    exports net.fips.dataplane.pool;
    exports net.fips.dataplane.engine;
    exports net.fips.dataplane.agent;
    exports net.fips.dataplane.route;
    exports net.fips.dataplane.tun;
    exports net.fips.dataplane.ipv6;
    exports net.fips.dataplane.ble;
    exports net.fips.dataplane.tor;
    exports net.fips.dataplane.nym;
}
