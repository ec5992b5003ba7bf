package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.load;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The nodes a test started, each with its ACL directory under the test's folder; {@link #close()} (from an
 * {@code @AfterEach}) stops those still running. One copy of the start-and-close set-up the node tests share.
 */
final class RunningNodes implements AutoCloseable {
    private final Path dir;
    private final List<Node> nodes = new ArrayList<>();

    /** @param dir the test's temporary folder */
    RunningNodes(final Path dir) {
        this.dir = dir;
    }

    /** Starts a node from {@code yaml} whose IPv6 packets for it go to {@code sink}. */
    Node start(final String yaml, final NodeTestSupport.Collector sink) throws Exception {
        return start(yaml, o -> o.ipv6Sink(sink::sink));
    }

    /** Starts a node from {@code yaml} with the options {@code options} adds. */
    Node start(final String yaml, final UnaryOperator<NodeOptions> options) throws Exception {
        final Node n = Node.start(load(yaml), options.apply(new NodeOptions().aclDirectory(dir.resolve("acl"))));
        nodes.add(n);
        return n;
    }

    /** @return the running nodes, in start order */
    List<Node> all() {
        return List.copyOf(nodes);
    }

    /** Forgets {@code n} (a test that stopped it itself, e.g. a crash). */
    void forget(final Node n) {
        nodes.remove(n);
    }

    @Override
    public void close() {
        nodes.forEach(Node::close);
        nodes.clear();
    }
}
