package net.fips.control.noise;

import static net.fips.control.noise.NoiseTestKeys.HEX;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.noise.HandshakeState.Pattern;

/**
 * The derived vectors of spec crypto-link §9.2 (keys a and b of the test topologies, ephemerals 11/22 and 33/44 x 32):
 * a second, independent set next to the JSON vectors, with the intermediate IK and XK traces and complete FMP frames
 * (whose AEAD additional data is the 16-byte header).
 */
class NoiseSpecVectorsTest {
    private static final byte[] KEY_A = HEX.parseHex(
            "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
    private static final byte[] KEY_B = HEX.parseHex(
            "b102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fb0");
    private static final byte[] EPOCH_I = HEX.parseHex("a1b2c3d411223344");
    private static final byte[] EPOCH_R = HEX.parseHex("d4c3b2a144332211");
    /** The initiator knows b by npub, i.e. as the even lift of its (odd) key. */
    private static final byte[] B_EVEN = HEX.parseHex(
            "025b5ddab24397e310e24d0a54ba85eaf4fe7d1866555156c7ac4558e674838a0e");

    private static byte[] fill(final int b) {
        final byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    private static void assertHex(final String want, final byte[] got) {
        assertEquals(want, HEX.formatHex(got));
    }

    @Test
    void keyBIsOddAndDhIsShaOfX() {
        assertHex("035b5ddab24397e310e24d0a54ba85eaf4fe7d1866555156c7ac4558e674838a0e", Secp256k1.compressed(KEY_B));
        final var b = Secp256k1.decodeCompressed(B_EVEN);
        assertHex("e8a457ea74476eb5617754c84a5e58c64b93035ed9aa1663ca7afe52aa967352", Secp256k1.ecdh(fill(0x11), b));
        assertHex("fc772f5af0bd0167c9d973f71406acefcc372ed445debceade69c530a35fcd63", Secp256k1.ecdh(KEY_A, b));
    }

    @Test
    void ikTraceMessagesAndKeys() throws Exception {
        final HandshakeState init = HandshakeState.initiator(Pattern.IK, KEY_A, B_EVEN, EPOCH_I,
                EphemeralSource.fixed(fill(0x11)));
        final HandshakeState resp = HandshakeState.responder(Pattern.IK, KEY_B, EPOCH_R,
                EphemeralSource.fixed(fill(0x22)));
        assertHex("69562963e7fe8799e67eed206dc0da32ccc595fb62c16d0f4d5d574079a5a036", init.handshakeHash());
        assertHex("69562963e7fe8799e67eed206dc0da32ccc595fb62c16d0f4d5d574079a5a036", resp.handshakeHash());
        assertHex("15bea16f93969bcae868e128bcbdc110b1d88a5306b367632171a9aaaad3f533", init.snapshot().ck());
        assertNull(init.snapshot().k());

        final byte[] m1 = init.writeMessage1();
        assertHex("034f355bdcb7cc0af728ef3cceb9615d90684bb5b2ca5f859ab0f0b704075871aa"
                + "8dd0350b5f73a2fc3d8d2cd508aa623fea35968f6099e85500b8226bf5b9611bdb08fa831d7baa7b24283749f1873c5aa8"
                + "efc3e25ca15498d999a31b1c0bf83a5f9f2364bc1310f161", m1);
        final SymmetricState.Snapshot s1 = init.snapshot();
        assertHex("7d925db049e8f601e50d3222eb91918627cfbbbcc0fb35c43c578150d79c618b", s1.h());
        assertHex("ff2cda8db91e90a40ce52a9e272b6ce382fc2aa72a701cb86e6efe81271720cf", s1.ck());
        assertHex("23b81a7a7dce0e7b7f13af5859c2ca80e1a23668670b726cd5447c4c8e72e989", s1.k());
        assertEquals(1, s1.n());
        resp.readMessage1(m1);
        assertArrayEquals(s1.h(), resp.snapshot().h());

        final byte[] m2 = resp.writeMessage2();
        assertHex("02466d7fcae563e5cb09a0d1870bb580344804617879a14949cf22285f1bae3f27d462bf34feb4a2fa67c810e4cfbbf86b"
                + "a02d19ce91aaa66f", m2);
        init.readMessage2(m2);
        final SymmetricState.Snapshot s2 = init.snapshot();
        assertHex("8cfb9f61c8ebf3b9e304908619f4397301355e78176862c1ded77ba84c75b78a", s2.h());
        assertHex("0a2d56877df209375e94edbd697ed0fbf05bfa1bc415a4fdbcc102cdd88730ae", s2.ck());
        assertHex("edbea2fd05e1cafbbbb66c0c1fcec3af7771b9e5fb6df7492bc19a07ffe3954c", s2.k());

        final HandshakeResult ri = init.finish();
        final HandshakeResult rr = resp.finish();
        assertHex("55c57f1a4f5d654e244d8f6b1299ea516737540dda4bdf9d08ced7c04c308894", ri.sendKey());
        assertHex("7c28d6047a4a009f2dc794ff59f32cf552646fb997b331f7ba91d24b617ccf77", ri.recvKey());
        assertArrayEquals(ri.sendKey(), rr.recvKey());
        assertArrayEquals(B_EVEN, ri.remoteStatic());
        assertArrayEquals(Secp256k1.compressed(KEY_A), rr.remoteStatic());

        // Complete FMP frames: header (16, the AEAD AD) || sealed (timestamp u32 LE || msg_type || body).
        frame(ri, "000005004433221100000000000000001eab59320218967e16094ec9811854b62ced4ef11d", "0000000051");
        frame(ri, "000105004433221100000000000000001eab593202c9aba82fc439e326729e34d21bb08864", "0000000051");
        frame(rr, "00000600efbeadde00000000000000006ede28e3ca8c969bc26ab116916bf432dd7f1618a029", "e80300005000");
    }

    /** Seals {@code plaintext} as the first frame of a fresh session from {@code sender}, and opens it back. */
    private static void frame(final HandshakeResult sender, final String wireHex, final String plaintextHex)
            throws NoiseException {
        final byte[] wire = HEX.parseHex(wireHex);
        final byte[] header = Arrays.copyOf(wire, 16);
        final TransportSession tx = sender.newTransportSession();
        final TransportSession rx = new TransportSession(sender.recvKey(), sender.sendKey());
        assertEquals(0, tx.nextSendCounter());
        final byte[] sealed = tx.encrypt(header, HEX.parseHex(plaintextHex));
        assertArrayEquals(Arrays.copyOfRange(wire, 16, wire.length), sealed);
        assertHex(plaintextHex, rx.decrypt(0, header, sealed));
    }

    @Test
    void xkTraceMessagesAndKeys() throws Exception {
        final HandshakeState init = HandshakeState.initiator(Pattern.XK, KEY_A, B_EVEN, EPOCH_I,
                EphemeralSource.fixed(fill(0x33)));
        final HandshakeState resp = HandshakeState.responder(Pattern.XK, KEY_B, EPOCH_R,
                EphemeralSource.fixed(fill(0x44)));
        assertHex("bd1bde0a7b30e9fef6df8eafba952b208221e73e27835c4b157b2239e4734afd", resp.handshakeHash());

        final byte[] m1 = init.writeMessage1();
        assertHex("023c72addb4fdf09af94f0c94d7fe92a386a7e70cf8a1d85916386bb2535c7b1b1", m1);
        assertHex("431dc9c074f35ab57803e7a04f697b5eb170ec2aa96fcc3effbeec2fd62dc39e", init.handshakeHash());
        assertHex("b341230c0b7b1abff3c435e5214b172ef3f70bfcc26e7b6c2e65ad028c90c992", init.snapshot().k());
        assertEquals(0, init.snapshot().n(), "XK msg1 carries no payload, so nothing was sealed");
        resp.readMessage1(m1);

        final byte[] m2 = resp.writeMessage2();
        assertHex("032c0b7cf95324a07d05398b240174dc0c2be444d96b159aa6c7f7b1e66868099173b37db7537672b478d70a8c1cc287"
                + "56a352befb04c772ee", m2);
        init.readMessage2(m2);
        assertHex("dd88f7f7f7dcbfed804ac8a18cd0051d64e4a3a7aa8ef6694ee968b65a076a3f", init.handshakeHash());
        assertEquals(1, init.snapshot().n());

        final byte[] m3 = init.writeMessage3();
        assertHex("af47e233a1046af6ce1b1124ce175b519cb5e81470f7074cde745fa3e131e462dcc0d68d60557e6e391e05bef77cf6c4"
                + "325eb3d876fe27b00a1c99736aa38575e7cc225d856d1b3652", m3);
        resp.readMessage3(m3);
        assertHex("253f0a519588a795f4a96d8bbe5f78b3441160759895eb09bbd9f98dd92634f0", resp.handshakeHash());
        assertHex("e6edd2cf5c717f94f3f0d50ef8e46ced44763d38b21b56b99e79f97f0e5978fe", resp.snapshot().ck());

        final HandshakeResult ri = init.finish();
        final HandshakeResult rr = resp.finish();
        assertHex("fc5863cf289b78ba83381c1528fa342e27f25b25f9f3e956541ffc53d2c09bf7", ri.sendKey());
        assertHex("7d5a9b7e1b2b62d60e922699904c22a7ed736c9903ca0db74d2bea780cb57d28", ri.recvKey());
        assertArrayEquals(ri.recvKey(), rr.sendKey());
        assertArrayEquals(EPOCH_I, rr.remoteEpoch());
        assertArrayEquals(EPOCH_R, ri.remoteEpoch());

        // FSP DataPacket, counter 0: the 12-byte FSP header is the AD.
        final byte[] wire = HEX.parseHex(
                "00000f0000000000000000004467a1f904b401c488b573648f506d614d4209106ab9ffe77ec545d15456a4");
        final byte[] header = Arrays.copyOf(wire, 12);
        final byte[] plaintext = rr.newTransportSession().decrypt(0, header, Arrays.copyOfRange(wire, 12, wire.length));
        assertEquals(15, plaintext.length);
        assertArrayEquals(Arrays.copyOfRange(wire, 12, wire.length),
                ri.newTransportSession().encrypt(header, plaintext));
    }
}
