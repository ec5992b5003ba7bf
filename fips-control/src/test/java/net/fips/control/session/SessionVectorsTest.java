package net.fips.control.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Arrays;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.EphemeralSource;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.testing.Hex;

/**
 * The handshake carriers {@link Sessions} puts on the wire, checked byte for byte against the reference's
 * known-answer vectors: {@code noise_xk.json} (both vectors: msg1-3 and the transport keys) and
 * {@code wire_session.json} (the complete SessionSetup / SessionAck / SessionMsg3 of xk-basic, coordinates
 * included). Everything goes through the production path: initiate, onFspMessage, the listener's keys.
 */
final class SessionVectorsTest {
    private static final HexFormat HEX = HexFormat.of();

    /** A host with fixed coordinates that records what it routes. */
    private static final class Host implements SessionHost {
        final NodeAddr self;
        final Coords coords;
        final Coords destCoords;
        final List<SessionDatagram> routed = new ArrayList<>();

        Host(final NodeAddr self, final Coords coords, final Coords destCoords) {
            this.self = self;
            this.coords = coords;
            this.destCoords = destCoords;
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
        public Coords coordsOf(final NodeAddr dest) {
            return destCoords;
        }

        @Override
        public boolean route(final SessionDatagram datagram) {
            routed.add(datagram);
            return true;
        }
    }

    private static Path dir() {
        final String prop = System.getProperty("fips.vectors.dir");
        final Path d = Path.of(prop != null ? prop : "../../shared/vectors").toAbsolutePath().normalize();
        if (!Files.isDirectory(d)) {
            fail("known-answer vectors not found at " + d);
        }
        return d;
    }

    private static Coords coords(final JsonNode arr) {
        final List<NodeAddr> l = new ArrayList<>();
        arr.forEach(a -> l.add(NodeAddr.ofHex(a.asText())));
        return new Coords(l);
    }

    private static JsonNode wire(final JsonNode vectors, final String typePrefix) {
        for (final JsonNode v : vectors) {
            if (v.get("type").asText().startsWith(typePrefix) && !v.has("description")) {
                return v;
            }
        }
        throw new AssertionError("no wire_session vector " + typePrefix);
    }

    private static byte[] handshakeField(final JsonNode v) {
        final var it = v.fieldNames();
        while (it.hasNext()) {
            final String f = it.next();
            if (f.startsWith("handshake_payload_hex")) {
                return Hex.field(v, f);
            }
        }
        throw new AssertionError("no handshake payload");
    }

    @Test
    void handshakeCarriersReproduceTheVectors() throws Exception {
        final ObjectMapper om = new ObjectMapper();
        final JsonNode xk = om.readTree(dir().resolve("noise_xk.json").toFile()).get("vectors");
        final JsonNode ws = om.readTree(dir().resolve("wire_session.json").toFile()).get("vectors");
        final JsonNode setupV = wire(ws, "SessionSetup");
        final JsonNode ackV = wire(ws, "SessionAck");
        final JsonNode msg3V = wire(ws, "SessionMsg3");
        int checked = 0;
        for (final JsonNode v : xk) {
            final boolean basic = v.get("name").asText().equals("xk-basic");
            final NodeIdentity ini = NodeIdentity.fromSecret(Hex.field(v, "initiator_static_secret_hex"));
            final NodeIdentity res = NodeIdentity.fromSecret(Hex.field(v, "responder_static_secret_hex"));
            // the wire vector's coordinates belong to xk-basic's two nodes
            final Coords iniCoords = basic ? coords(setupV.get("src_coords_hex")) : Coords.of(ini.nodeAddr());
            final Coords resCoords = basic ? coords(setupV.get("dest_coords_hex")) : Coords.of(res.nodeAddr());
            if (basic) {
                assertEquals(iniCoords.addrs().getFirst(), ini.nodeAddr());
                assertEquals(resCoords.addrs().getFirst(), res.nodeAddr());
            }
            final Host ih = new Host(ini.nodeAddr(), iniCoords, resCoords);
            final Host rh = new Host(res.nodeAddr(), resCoords, null);
            final IdentityCache iid = new IdentityCache();
            final IdentityCache rid = new IdentityCache();
            iid.register(PeerIdentity.fromCompressed(Hex.field(v, "initiator_knows_responder_static_as_hex")), 0);
            final SessionBus.Events ie = new SessionBus.Events();
            final SessionBus.Events re = new SessionBus.Events();
            final Sessions is = new Sessions(SessionConfig.defaults(), ini, Hex.field(v, "initiator_epoch_hex"), ih,
                    iid,
                    ie, EphemeralSource.fixed(Hex.field(v, "initiator_ephemeral_secret_hex")), new Random(1));
            final Sessions rs = new Sessions(SessionConfig.defaults(), res, Hex.field(v, "responder_epoch_hex"), rh,
                    rid,
                    re, EphemeralSource.fixed(Hex.field(v, "responder_ephemeral_secret_hex")), new Random(2));

            assertEquals(Sessions.InitiateResult.STARTED, is.initiate(res.nodeAddr(), 0));
            final SessionDatagram setup = ih.routed.getFirst();
            assertEquals(64, setup.ttl());
            assertEquals(ini.nodeAddr(), setup.src());
            assertEquals(res.nodeAddr(), setup.dest());
            assertArrayEquals(Hex.field(v, "msg1_hex"), Arrays.copyOfRange(setup.payload(),
                    setup.payload().length - 33, setup.payload().length));

            assertTrue(rs.onFspMessage(setup.src(), setup.payload(), 0));
            final SessionDatagram ack = rh.routed.getFirst();
            assertArrayEquals(Hex.field(v, "msg2_hex"), Arrays.copyOfRange(ack.payload(),
                    ack.payload().length - 57, ack.payload().length));

            assertTrue(is.onFspMessage(ack.src(), ack.payload(), 0));
            final SessionDatagram msg3 = ih.routed.get(1);
            assertArrayEquals(Hex.field(v, "msg3_hex"), Arrays.copyOfRange(msg3.payload(),
                    msg3.payload().length - 73, msg3.payload().length));
            assertTrue(rs.onFspMessage(msg3.src(), msg3.payload(), 0));

            if (basic) {
                assertArrayEquals(Hex.field(setupV, "encoded_hex"), setup.payload());
                assertArrayEquals(handshakeField(setupV), Hex.field(v, "msg1_hex"));
                assertArrayEquals(Hex.field(ackV, "encoded_hex"), ack.payload());
                assertArrayEquals(handshakeField(ackV), Hex.field(v, "msg2_hex"));
                assertArrayEquals(Hex.field(msg3V, "encoded_hex"), msg3.payload());
                checked += 3;
            }
            final SessionKeys ik = ie.established.getFirst();
            final SessionKeys rk = re.established.getFirst();
            assertArrayEquals(Hex.field(v, "transport_key_initiator_to_responder_hex"), ik.sendKey());
            assertArrayEquals(Hex.field(v, "transport_key_responder_to_initiator_hex"), ik.recvKey());
            assertArrayEquals(Hex.field(v, "transport_key_initiator_to_responder_hex"), rk.recvKey());
            assertArrayEquals(Hex.field(v, "transport_key_responder_to_initiator_hex"), rk.sendKey());
            assertArrayEquals(Hex.field(v, "responder_epoch_hex"), ik.remoteEpoch());
            assertArrayEquals(Hex.field(v, "initiator_epoch_hex"), rk.remoteEpoch());
            assertNotNull(rid.lookup(ini.nodeAddr(), 0), "responder registered the initiator's identity");
            checked++;
        }
        assertEquals(3 + 2, checked, "xk-basic carriers and keys of both XK vectors");
    }
}
