package net.fips.control.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.IdentityFormatException.Problem;
import net.fips.dataplane.wire.NodeAddr;

/** NodeIdentity and PeerIdentity against the upstream and spec vectors (crypto-link.md §9). */
class NodeIdentityTest {
    private static final HexFormat HEX = HexFormat.of();

    /** secret hex, npub, compressed key, node_addr, IPv6 text. */
    private static final String[][] KEYS = {
        {"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
            "npub1sjlh2c3x9w7kjsqg2ay080n2lff2uvt325vpan33ke34rn8l5jcqawh57m",
            "0284bf7562262bbd6940085748f3be6afa52ae317155181ece31b66351ccffa4b0",
            "69e08d65cc3a6b9c2c2ac4bd405e4b0e", "fd69:e08d:65cc:3a6b:9c2c:2ac4:bd40:5e4b"},
        {"b102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fb0",
            "npub1tdwa4vjrjl33pcjdpf2t4p027nl86xrx24g4d3avg4vwvayr3g8qhd84le",
            "035b5ddab24397e310e24d0a54ba85eaf4fe7d1866555156c7ac4558e674838a0e",
            "8e302c287eb48d6268122fda760b7727", "fd8e:302c:287e:b48d:6268:122f:da76:b77"},
        {"c102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fc0",
            "npub1cld9yay0u24davpu6c35l4vldrhzvaq66pcqtg9a0j2cnjrn9rtsxx2pe6",
            "02c7da52748fe2aadeb03cd6234fd59f68ee26741ad07005a0bd7c9589c87328d7",
            "aca221406950440c41d550280ed15a7f", "fdac:a221:4069:5044:c41:d550:280e:d15a"},
        {"d102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fd0",
            "npub1n9lpnv0592cc2ps6nm0ca3qls642vx7yjsv35rkxqzj2vgds52sqgpverl",
            "03997e19b1f42ab185061a9edf8ec41f86aaa61bc494191a0ec600a4a621b0a2a0",
            "b68411a1916d48efc6b8bd63bb1cd7df", "fdb6:8411:a191:6d48:efc6:b8bd:63bb:1cd7"},
        {"e102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fe0",
            "npub1wf8akf8lu2zdkjkmwhl75pqvven654mpv4sz2x2tprl5265mgrzq8nhak4",
            "02724fdb24ffe284db4adb75ffea040c6667aa5761656025194b08ff456a9b40c4",
            "ed7deed386a5462a43510316d84f3ccb", "fded:7dee:d386:a546:2a43:5103:16d8:4f3c"},
        {"abababababababababababababababababababababababababababababababab",
            "npub1sx42mj99aql52aklsg70y2jmr95u7uz2p40k769aw46ppjv302kqkhmu5r",
            "0381aaadc8a5e83f4576df823cf22a5b1969cf704a0d5f6f68bd757410c9917aac",
            "1b4788b7ab7a436a611fc59fb1e34c6e", "fd1b:4788:b7ab:7a43:6a61:1fc5:9fb1:e34c"},
        {"e752b92aed3ac1595807f5d0eb5125589fbec0a2cfd3a2948d87ea076557deeb",
            "npub182gxju0hpeapa95u9as9hhhc285rphvy3w3rn3gxxrahwrsc5wesdnq7s2",
            "023a906971f70e7a1e969c2f605bdef851e830dd848ba239c50630fb770e18a3b3",
            "948ae84a76b8049b55b0eb06e00c97a5", "fd94:8ae8:4a76:b804:9b55:b0eb:6e0:c97"},
    };

    @Test
    void derivesTheReferenceIdentities() throws IdentityFormatException {
        for (final String[] k : KEYS) {
            final NodeIdentity id = NodeIdentity.parse(k[0]);
            assertEquals(k[1], id.npub(), k[0]);
            assertEquals(k[2], HEX.formatHex(id.compressedPublicKey()), k[0]);
            assertEquals(k[2].substring(2), HEX.formatHex(id.publicKey()));
            assertEquals(k[2].startsWith("03"), id.hasOddY());
            assertEquals(k[3], id.nodeAddr().toString());
            assertEquals(k[4], id.address().toString());
            final PeerIdentity peer = PeerIdentity.fromNpub(k[1]);
            assertEquals(id.nodeAddr(), peer.nodeAddr());
            assertEquals("02" + k[2].substring(2), HEX.formatHex(peer.compressedPublicKey()), "even lift");
            assertEquals(id.toPeer(), peer, "equal whatever the parity view");
            assertEquals(id.toPeer().hashCode(), peer.hashCode());
            assertArrayEquals(id.compressedPublicKey(), id.toPeer().compressedPublicKey(), "real parity kept");
        }
    }

    @Test
    void nsecPairsFromTheReferenceTests() throws IdentityFormatException {
        assertEquals("npub1x5z9rwzzm26q9verutx4aajhf2zw2pyp34c6whhde2zduxqav40qgq36l6",
                NodeIdentity.fromNsec("nsec1egyrmekfw3u4l88v8zhrak9uht503s2kvn9v49tqgp6c5l2yuxgsv386l0").npub());
        assertEquals("npub1ytrut7gjncn2zfnhn56c0zgftf0w6p99gf6fu8j73hzw5603zglqc9av6c",
                NodeIdentity.parse("nsec1afh3nysthqh47awpdewcw59wvvp499f8dvlyclmnv4gvpxdk56dsa6eqsn").npub());
        final NodeIdentity a = NodeIdentity.parse(KEYS[0][0]);
        assertEquals("nsec1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusqpqcc2y", a.nsec());
        assertEquals("nsec14w46h2at4w46h2at4w46h2at4w46h2at4w46h2at4w46h2at4w4s5l3rd9",
                NodeIdentity.parse(KEYS[5][0]).nsec());
        assertArrayEquals(a.secretKey(), NodeIdentity.fromNsec(a.nsec()).secretKey());
    }

    @Test
    void leadingZeroGroupInTheAddressText() throws IdentityFormatException {
        final PeerIdentity peer = PeerIdentity.fromNpub(
                "npub1qmc3cvfz0yu2hx96nq3gp55zdan2qclealn7xshgr448d3nh6lks7zel98");
        assertEquals("06f11c31227938ab98ba982280d2826f66a063f9efe7e342e81d6a76c677d7ed",
                HEX.formatHex(peer.publicKey()));
        assertEquals("00dc7a5def9255b47f79a701993d8ecf", peer.nodeAddr().toString());
        assertEquals("fd00:dc7a:5def:9255:b47f:79a7:199:3d8e", peer.address().toString());
        assertEquals(peer, PeerIdentity.fromHex(HEX.formatHex(peer.publicKey()).toUpperCase()));
        assertEquals(peer, PeerIdentity.parse(HEX.formatHex(peer.publicKey())));
        assertEquals(peer, PeerIdentity.parse(peer.npub()));
        assertEquals("npub1qmc3...el98", peer.shortNpub());
    }

    @Test
    void rejectsInvalidSecretsAndKeys() {
        assertEquals(Problem.INVALID_KEY, assertThrows(IdentityFormatException.class,
                () -> NodeIdentity.fromSecret(new byte[32])).problem());
        assertEquals(Problem.WRONG_LENGTH, assertThrows(IdentityFormatException.class,
                () -> NodeIdentity.fromSecret(new byte[16])).problem());
        assertEquals(Problem.WRONG_LENGTH, assertThrows(IdentityFormatException.class,
                () -> PeerIdentity.fromPublicKey(new byte[33])).problem());
        assertEquals(Problem.INVALID_KEY, assertThrows(IdentityFormatException.class,
                () -> PeerIdentity.fromPublicKey(new byte[32])).problem());
        assertEquals(Problem.INVALID_KEY, assertThrows(IdentityFormatException.class,
                () -> PeerIdentity.fromCompressed(HEX.parseHex("04" + KEYS[0][2].substring(2)))).problem());
        assertEquals(Problem.BAD_HEX, assertThrows(IdentityFormatException.class,
                () -> PeerIdentity.fromHex("xyz")).problem());
        assertEquals(Problem.BAD_HEX, assertThrows(IdentityFormatException.class,
                () -> NodeIdentity.parse(" " + KEYS[0][0])).problem(), "no trimming: a space is not hex");
    }

    @Test
    void generatedIdentitiesAreDistinctAndUsable() throws IdentityFormatException {
        final Set<NodeAddr> seen = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            final NodeIdentity id = NodeIdentity.generate();
            assertTrue(seen.add(id.nodeAddr()));
            assertArrayEquals(id.secretKey(), NodeIdentity.parse(id.nsec()).secretKey());
            assertEquals(id.toPeer(), PeerIdentity.fromNpub(id.npub()));
        }
    }

    @Test
    void signAndVerifyThroughIdentities() throws IdentityFormatException {
        final NodeIdentity a = NodeIdentity.parse(KEYS[0][0]);
        final NodeIdentity b = NodeIdentity.parse(KEYS[1][0]);
        final PeerIdentity aSeenByB = PeerIdentity.fromNpub(a.npub());
        final byte[] data = "lookup proof".getBytes(StandardCharsets.UTF_8);
        final byte[] sig = a.sign(data);
        assertTrue(aSeenByB.verify(data, sig));
        assertFalse(b.toPeer().verify(data, sig), "wrong key");
        assertFalse(aSeenByB.verify(Arrays.copyOf(data, data.length - 1), sig), "changed data");
        final byte[] bad = sig.clone();
        bad[40] ^= 1;
        assertFalse(aSeenByB.verify(data, bad), "changed signature");
        // Odd-Y key b signs too: verification uses only its x-only key.
        assertTrue(PeerIdentity.fromNpub(b.npub()).verify(data, b.sign(data)));
        assertArrayEquals(a.sign(data, new byte[32]), a.sign(data, new byte[32]));
    }

    @Test
    void toStringHidesTheSecret() throws IdentityFormatException {
        final NodeIdentity id = NodeIdentity.parse(KEYS[0][0]);
        final String s = id.toString();
        assertFalse(s.contains(id.nsec()));
        assertFalse(s.contains(KEYS[0][0]));
        assertTrue(s.contains(id.npub()));
        assertNotEquals(id.toString(), NodeIdentity.parse(KEYS[1][0]).toString());
    }
}
