package net.fips.control.dns;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

import net.fips.control.identity.PeerIdentity;

/**
 * The {@code .fips} responder's decision, a pure function of the query bytes and the resolver (operator.md
 * §4.6). Only the first question counts:
 * <ul>
 *   <li>AAAA for a resolvable name: NOERROR, AA, one AAAA record with the peer's {@code fd00::/8} address and
 *       the configured TTL; the peer is passed to {@code onResolved} (the node primes its identity cache).</li>
 *   <li>Any other type for a resolvable name: NOERROR with no answers (so stub resolvers go on to ask for
 *       AAAA); nothing is reported.</li>
 *   <li>Everything else, any name outside {@code .fips} included: NXDOMAIN.</li>
 *   <li>A message that does not decode, or has no question: dropped, no reply (as the reference).</li>
 * </ul>
 * Every reply echoes all questions, keeps the query's id and opcode, sets QR and AA only and carries no OPT
 * record. Stateless apart from its configuration; safe to call from one thread at a time per output buffer.
 */
public final class DnsResponder {
    /** The reference's default answer TTL in seconds ({@code dns.ttl}). */
    public static final long DEFAULT_TTL = 300;

    /** What became of one query. */
    public enum Kind {
        /** An AAAA answer was given. */
        ANSWERED,
        /** NOERROR without answers (a resolvable name, another type). */
        NO_DATA,
        /** NXDOMAIN. */
        NXDOMAIN,
        /** Dropped: the message is malformed or has no question. */
        DROPPED
    }

    /**
     * The outcome of one query.
     *
     * @param kind     what happened
     * @param response the reply bytes (empty when dropped)
     * @param resolved the peer answered for ({@link Kind#ANSWERED} only), else null
     * @param problem  why it was dropped when the message was malformed, else null
     */
    public record Result(Kind kind, byte[] response, PeerIdentity resolved, DnsFormatException.Problem problem) {
        /** Checks nullness. */
        public Result {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(response, "response");
        }

        @Override
        public boolean equals(final Object o) {
            return o instanceof Result r && r.kind == kind && Arrays.equals(r.response, response)
                    && Objects.equals(r.resolved, resolved) && r.problem == problem;
        }

        @Override
        public int hashCode() {
            return kind.hashCode() * 31 + Arrays.hashCode(response);
        }

        @Override
        public String toString() {
            return "Result[" + kind + ", " + response.length + " bytes" + (problem == null ? "" : ", " + problem)
                    + "]";
        }
    }

    private static final byte[] NONE = new byte[0];

    private final FipsNameResolver resolver;
    private final long ttl;
    private final Consumer<PeerIdentity> onResolved;

    /**
     * @param resolver   name to peer
     * @param ttlSeconds TTL on AAAA answers ({@code dns.ttl}, 0..2^32-1)
     * @param onResolved told of every peer an AAAA answer was given for (the node's identity-cache hook); it
     *                   runs on the caller's thread and must not block
     */
    public DnsResponder(final FipsNameResolver resolver, final long ttlSeconds,
            final Consumer<PeerIdentity> onResolved) {
        if (ttlSeconds < 0 || ttlSeconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("ttl out of u32 range: " + ttlSeconds);
        }
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.ttl = ttlSeconds;
        this.onResolved = Objects.requireNonNull(onResolved, "onResolved");
    }

    /**
     * Answers one query.
     *
     * @param query the datagram's bytes
     * @param off   where the message starts
     * @param len   its length
     * @return what to send back, or a drop
     */
    public Result respond(final byte[] query, final int off, final int len) {
        final DnsQuery q;
        try {
            q = DnsCodec.decode(query, off, len);
        } catch (final DnsFormatException e) {
            return new Result(Kind.DROPPED, NONE, null, e.problem());
        }
        if (q.questions().isEmpty()) {
            return new Result(Kind.DROPPED, NONE, null, null);
        }
        final DnsQuestion first = q.questions().getFirst();
        PeerIdentity peer;
        try {
            peer = resolver.resolve(first.nameText());
        } catch (final RuntimeException e) {
            peer = null; // a failing resolver means "does not resolve", never a crash of the server loop
        }
        final boolean aaaa = first.qtype() == DnsCodec.TYPE_AAAA;
        final Kind kind = peer == null ? Kind.NXDOMAIN : aaaa ? Kind.ANSWERED : Kind.NO_DATA;
        // Bounded by the query: each echoed name is at most 255 bytes decompressed, plus the fixed parts.
        final byte[] out = new byte[Math.min(DnsCodec.MAX_MESSAGE,
                DnsCodec.HEADER_LENGTH + q.questions().size() * (255 + 4) + 255 + 10 + 16)];
        final int n;
        try {
            n = DnsCodec.encodeResponse(q, kind == Kind.NXDOMAIN ? DnsCodec.RCODE_NXDOMAIN : DnsCodec.RCODE_NOERROR,
                    kind == Kind.ANSWERED ? peer.address().toBytes() : null, ttl, out, 0);
        } catch (final DnsFormatException e) {
            return new Result(Kind.DROPPED, NONE, null, e.problem());
        }
        if (kind == Kind.ANSWERED) {
            onResolved.accept(peer);
        }
        return new Result(kind, Arrays.copyOf(out, n), kind == Kind.ANSWERED ? peer : null, null);
    }

    /** @return the TTL put on answers */
    public long ttl() {
        return ttl;
    }
}
