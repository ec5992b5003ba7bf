package net.fips.gateway;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start-up checks of discovery-gateway.md §4.1/§4.5 against a fake {@code /proc} and {@code /sys}. */
class NetSetupTest {
    @TempDir
    Path root;

    private NetSetup net() {
        return new NetSetup(root, "ip");
    }

    private void write(final String rel, final String text) throws Exception {
        final Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    @Test
    void withoutCapNetAdminTheErrorSaysWhatToDo() throws Exception {
        write("proc/self/status", "Name:\tjava\nCapEff:\t0000000000000000\n");
        final GatewayException e = assertThrows(GatewayException.class, () -> net().requireNetAdmin());
        assertTrue(e.getMessage().contains("needs CAP_NET_ADMIN") && e.getMessage().contains("run it as root"),
                e.getMessage());
        write("proc/self/status", "Name:\tjava\nCapEff:\t0000000000001000\n");
        assertDoesNotThrow(() -> net().requireNetAdmin());
    }

    @Test
    void forwardingOffIsAnErrorNamingTheSysctl() throws Exception {
        write("proc/sys/net/ipv6/conf/all/forwarding", "0\n");
        final GatewayException e = assertThrows(GatewayException.class, () -> net().requireForwarding());
        assertTrue(e.getMessage().contains("sysctl -w net.ipv6.conf.all.forwarding=1"), e.getMessage());
        write("proc/sys/net/ipv6/conf/all/forwarding", "1\n");
        assertDoesNotThrow(() -> net().requireForwarding());
    }

    @Test
    void proxyNdpOffIsOnlyAWarning() throws Exception {
        write("proc/sys/net/ipv6/conf/all/proxy_ndp", "0\n");
        assertTrue(net().proxyNdpWarning().contains("net.ipv6.conf.all.proxy_ndp=1"));
        write("proc/sys/net/ipv6/conf/all/proxy_ndp", "1\n");
        assertNull(net().proxyNdpWarning());
    }

    @Test
    void aMissingInterfaceIsNamed() throws Exception {
        Files.createDirectories(root.resolve("sys/class/net/fips0"));
        assertDoesNotThrow(() -> net().requireInterface("fips0", "the daemon's TUN"));
        final GatewayException e = assertThrows(GatewayException.class,
                () -> net().requireInterface("br-lan", "gateway.lan_interface"));
        assertTrue(e.getMessage().equals("interface br-lan (gateway.lan_interface) does not exist"), e.getMessage());
        assertThrows(GatewayException.class, () -> net().requireInterface("../x", "bad"));
    }
}
