package net.fips.control.discovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.testing.Hex;

/**
 * Discovery against the reference's bytes (the LookupResponse vector of {@code shared/vectors/wire_link.json}, made
 * by the Rust node): a Rust-signed response is accepted by our originator, and our target, holding the vector's
 * key, produces the vector's proof bytes and, with zero aux, its exact encoding.
 */
class DiscoveryInteropTest {
    static final HexFormat HEX = HexFormat.of();
    static JsonNode vector;

    @BeforeAll
    static void load() throws IOException {
        final String prop = System.getProperty("fips.vectors.dir");
        final Path dir = Path.of(prop != null ? prop : "../../shared/vectors").toAbsolutePath().normalize();
        for (final JsonNode v : new ObjectMapper().readTree(dir.resolve("wire_link.json").toFile()).get("vectors")) {
            if (v.get("type").asText().equals("LookupResponse")) {
                vector = v;
            }
        }
        assertNotNull(vector, "wire_link.json has a LookupResponse vector");
    }

    static Coords targetCoords() {
        final List<NodeAddr> addrs = new ArrayList<>();
        for (final JsonNode a : vector.get("target_coords_hex")) {
            addrs.add(NodeAddr.ofHex(a.asText()));
        }
        return new Coords(addrs);
    }

    /** A one-peer node: {@code self} with coordinate {@code coords}, one tree peer over a link of {@code mtu}. */
    static final class OnePeer implements MeshView {
        final NodeAddr self;
        final Coords coords;
        final DiscoveryPeer peer;
        final List<byte[]> sent = new ArrayList<>();

        OnePeer(final NodeAddr self, final Coords coords, final NodeAddr peerAddr, final int mtu) {
            this.self = self;
            this.coords = coords;
            this.peer = new DiscoveryPeer(peerAddr, true, BloomFilter.create(), mtu);
        }

        @Override
        public NodeAddr self() {
            return self;
        }

        @Override
        public Coords selfCoords() {
            return coords;
        }

        @Override
        public List<DiscoveryPeer> peers() {
            return List.of(peer);
        }

        @Override
        public void sendLinkMessage(final NodeAddr to, final byte[] msg) {
            sent.add(msg);
        }
    }

    @Test
    void rustSignedResponseIsAcceptedByOurOriginator() throws Exception {
        final NodeAddr target = NodeAddr.ofHex(vector.get("target_hex").asText());
        for (final String key : new String[] {"encoded_random_aux_hex", "encoded_path_mtu_65535_random_aux_hex"}) {
            final NodeAddr peer = NodeAddr.of(0x1111, 0x2222);
            final OnePeer mesh = new OnePeer(NodeAddr.of(0x3333, 0x4444), Coords.of(NodeAddr.of(0x3333, 0x4444)),
                    peer, 1280);
            final IdentityCache ids = new IdentityCache();
            ids.register(PeerIdentity.fromPublicKey(Hex.field(vector, "target_pubkey_xonly_hex")), 0);
            final Map<NodeAddr, Object[]> cache = new HashMap<>();
            final Discovery d = new Discovery(DiscoveryConfig.defaults(), mesh, ids,
                    (t, c, mtu, now) -> cache.put(t, new Object[] {c, mtu}), PathMtuClamp.NONE,
                    DiscoveryListener.NONE, b -> new byte[64], ProofVerifier.SCHNORR, new Random(1));
            d.onLinkMessage(peer, Hex.field(vector, key), 0);
            assertEquals(1, d.counter(DiscoveryCounter.RESPONSES_ACCEPTED), key);
            assertEquals(targetCoords(), cache.get(target)[0]);
            assertEquals(key.contains("65535") ? 65535 : vector.get("path_mtu").asInt(), cache.get(target)[1]);
        }
    }

    @Test
    void ourTargetProducesTheReferenceBytes() throws Exception {
        final NodeIdentity me = NodeIdentity.fromSecret(Hex.field(vector, "target_secret_key_hex"));
        assertEquals(NodeAddr.ofHex(vector.get("target_hex").asText()), me.nodeAddr());
        final NodeAddr origin = NodeAddr.of(0x1111, 0x2222);
        final OnePeer mesh = new OnePeer(me.nodeAddr(), targetCoords(), origin, vector.get("path_mtu").asInt());
        final List<byte[]> signedBytes = new ArrayList<>();
        final Discovery d = new Discovery(DiscoveryConfig.defaults(), mesh, new IdentityCache(),
                (t, c, mtu, now) -> {
                }, PathMtuClamp.NONE, DiscoveryListener.NONE, b -> {
                    signedBytes.add(b);
                    return me.sign(b, new byte[32]);
                }, ProofVerifier.SCHNORR, new Random(1));
        final long id = Long.parseUnsignedLong(vector.get("request_id").asText());
        d.onLinkMessage(origin, new LookupRequest(id, me.nodeAddr(), origin, 3, 0, Coords.of(origin)).encode(), 0);
        assertEquals(1, signedBytes.size());
        assertArrayEquals(Hex.field(vector, "proof_bytes_hex"), signedBytes.getFirst());
        assertEquals(1, mesh.sent.size());
        assertArrayEquals(Hex.field(vector, "encoded_deterministic_hex"), mesh.sent.getFirst(),
                "path_mtu folded to the 1400-byte link, zero-aux proof, byte-exact");
    }
}
