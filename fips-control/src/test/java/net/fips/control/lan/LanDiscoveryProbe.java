package net.fips.control.lan;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import javax.jmdns.JmDNS;
import javax.jmdns.ServiceEvent;
import javax.jmdns.ServiceInfo;
import javax.jmdns.ServiceListener;

/**
 * Run inside a network namespace by {@link LanDiscoveryNamespaceTest}: starts three {@link LanDiscovery}s on one
 * interface address (A and B in the default scope, C in another) plus a bare JmDNS browser standing in for a
 * reference node's view, and prints what each found, one line each, until A and B found each other and the browser
 * saw A's TXT, or 20 s passed. Lines: {@code found <who> <npub> <ip:port>}, {@code txt <instance> <k=v,...>},
 * {@code done} or {@code timeout}.
 */
public final class LanDiscoveryProbe {

    private LanDiscoveryProbe() {
    }

    /**
     * @param args the interface address, then the npubs of A, B and C
     * @throws Exception on any failure (the test reads the output)
     */
    public static void main(final String[] args) throws Exception {
        final InetAddress at = InetAddress.ofLiteral(args[0]);
        final String type = LanAdvert.DEFAULT_SERVICE_TYPE;
        final String scope = LanAdvert.scope(null, null);
        final List<AutoCloseable> open = new ArrayList<>();
        try {
            final LanDiscovery a = LanDiscovery.start(type, args[1], scope, 2121, List.of(at));
            open.add(a);
            final LanDiscovery b = LanDiscovery.start(type, args[2], scope, 2122, List.of(at));
            open.add(b);
            final LanDiscovery c = LanDiscovery.start(type, args[3], "other-scope", 2123, List.of(at));
            open.add(c);
            final JmDNS browser = JmDNS.create(at, "browser");
            open.add(browser);
            final Map<String, String> txts = new TreeMap<>();
            browser.addServiceListener(type, new ServiceListener() {
                @Override
                public void serviceAdded(final ServiceEvent e) {
                    browser.requestServiceInfo(e.getType(), e.getName());
                }

                @Override
                public void serviceRemoved(final ServiceEvent e) {
                }

                @Override
                public void serviceResolved(final ServiceEvent e) {
                    final ServiceInfo info = e.getInfo();
                    final Map<String, String> txt = new TreeMap<>();
                    for (final String k : Collections.list(info.getPropertyNames())) {
                        txt.put(k, info.getPropertyString(k));
                    }
                    // JmDNS may report a service resolved before its TXT record arrived; only a TXT counts.
                    if (txt.isEmpty()) {
                        return;
                    }
                    synchronized (txts) {
                        txts.put(info.getName() + " " + info.getPort(), txt.toString());
                    }
                }
            });
            boolean aSawB = false;
            boolean bSawA = false;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                for (final LanDiscovery.Found f : a.drain(100)) {
                    System.out.println("found a " + f.npub() + " " + f.address().getAddress().getHostAddress() + ":"
                            + f.address().getPort());
                    aSawB |= f.npub().equals(args[2]);
                }
                for (final LanDiscovery.Found f : b.drain(100)) {
                    System.out.println("found b " + f.npub() + " " + f.address().getAddress().getHostAddress() + ":"
                            + f.address().getPort());
                    bSawA |= f.npub().equals(args[1]);
                }
                for (final LanDiscovery.Found f : c.drain(100)) {
                    System.out.println("found c " + f.npub());
                }
                final boolean txtSeen;
                synchronized (txts) {
                    txtSeen = txts.keySet().stream().anyMatch(k -> k.endsWith(" 2121"));
                }
                if (aSawB && bSawA && txtSeen) {
                    synchronized (txts) {
                        txts.forEach((k, v) -> System.out.println("txt " + k + " " + v));
                    }
                    System.out.println("refused a=" + a.refused() + " b=" + b.refused());
                    System.out.println("done");
                    return;
                }
                Thread.sleep(100);
            }
            System.out.println("timeout");
        } finally {
            for (final AutoCloseable o : open.reversed()) {
                o.close();
            }
            System.out.flush();
        }
    }
}
