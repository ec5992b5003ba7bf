package net.fips.control.nat;

import java.net.InetSocketAddress;

/** The NAT lab's STUN server ({@link NatLabNamespaceTest}): a {@link TestStunResponder} on the given address. */
public final class NatLabStun {
    private NatLabStun() {
    }

    /**
     * @param args the address to answer on, {@code ip port}
     * @throws Exception when the socket cannot be opened
     */
    public static void main(final String[] args) throws Exception {
        try (TestStunResponder r = new TestStunResponder(new InetSocketAddress(args[0], Integer.parseInt(args[1])),
                0, false)) {
            System.out.println("ready " + r.address().getPort());
            System.out.flush();
            System.in.read();   // until the lab closes our stdin
        }
    }
}
