package net.fips.control.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** fips.key / fips.pub reading, writing, permissions and identity resolution. */
class KeyFilesTest {
    private static final String HEX_A = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";

    @TempDir
    Path dir;

    private boolean posix;

    @BeforeEach
    void detectPosix() {
        posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    private String perms(final Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void writesTheReferenceFormatAndPermissions() throws Exception {
        final NodeIdentity id = NodeIdentity.parse(HEX_A);
        final Path key = dir.resolve(KeyFiles.KEY_FILE_NAME);
        final Path pub = dir.resolve(KeyFiles.PUB_FILE_NAME);
        KeyFiles.writeKeyFile(key, id);
        KeyFiles.writePubFile(pub, id.npub());
        assertEquals(id.nsec() + "\n", Files.readString(key));
        assertEquals(id.npub() + "\n", Files.readString(pub));
        if (posix) {
            assertEquals("rw-------", perms(key));
            assertEquals("rw-r--r--", perms(pub));
        }
        assertArrayEquals(id.secretKey(), KeyFiles.readKeyFile(key).secretKey());
    }

    @Test
    void rewriteTruncatesAndNarrowsALooseKeyFile() throws Exception {
        assumeTrue(posix);
        final Path key = dir.resolve("fips.key");
        Files.writeString(key, "x".repeat(500));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        final NodeIdentity id = NodeIdentity.generate();
        KeyFiles.writeKeyFile(key, id);
        assertEquals(id.nsec() + "\n", Files.readString(key), "old content fully replaced");
        assertEquals("rw-------", perms(key));
        // fips.pub keeps an existing mode, as the reference leaves it.
        final Path pub = dir.resolve("fips.pub");
        Files.writeString(pub, "old");
        Files.setPosixFilePermissions(pub, PosixFilePermissions.fromString("rw-r-----"));
        KeyFiles.writePubFile(pub, id.npub());
        assertEquals("rw-r-----", perms(pub));
        assertEquals(id.npub() + "\n", Files.readString(pub));
    }

    @Test
    void readTrimsWhitespaceAndAcceptsHex() throws Exception {
        final Path key = dir.resolve("fips.key");
        final NodeIdentity a = NodeIdentity.parse(HEX_A);
        Files.writeString(key, "\n\t  " + a.nsec() + "  \r\n\n");
        assertArrayEquals(a.secretKey(), KeyFiles.readKeyFile(key).secretKey());
        Files.writeString(key, HEX_A.toUpperCase() + "\n");
        assertArrayEquals(a.secretKey(), KeyFiles.readKeyFile(key).secretKey());
        // Rust's trim also removes Unicode white space such as NO-BREAK SPACE.
        Files.writeString(key, "\u00a0" + HEX_A + "\u3000", StandardCharsets.UTF_8);
        assertArrayEquals(a.secretKey(), KeyFiles.readKeyFile(key).secretKey());
    }

    @Test
    void missingEmptyAndCorruptFilesGiveNamedErrors() throws Exception {
        final Path key = dir.resolve("fips.key");
        final KeyFileException missing = assertThrows(KeyFileException.class, () -> KeyFiles.readKeyFile(key));
        assertEquals(KeyFileException.Problem.READ_FAILED, missing.problem());
        assertEquals(key, missing.path());
        assertTrue(missing.getMessage().contains(key.toString()), missing.getMessage());

        Files.writeString(key, " \n\t\n");
        final KeyFileException empty = assertThrows(KeyFileException.class, () -> KeyFiles.readKeyFile(key));
        assertEquals(KeyFileException.Problem.EMPTY, empty.problem());
        assertTrue(empty.getMessage().contains(key.toString()) && empty.getMessage().contains("empty"));

        // Change the last checksum character (to one it is not already: a fixed replacement is a no-op 1 time in 32).
        final String nsec = NodeIdentity.generate().nsec();
        final String badNsec = nsec.substring(0, 62) + (nsec.charAt(62) == 'q' ? "p" : "q");
        Files.writeString(key, badNsec + "\n");
        final KeyFileException corrupt = assertThrows(KeyFileException.class, () -> KeyFiles.readKeyFile(key));
        assertEquals(KeyFileException.Problem.CORRUPT, corrupt.problem());
        assertTrue(corrupt.getCause() instanceof IdentityFormatException);
        assertFalse(corrupt.getMessage().contains(badNsec.substring(5, 40)), "secret not echoed");

        Files.write(key, new byte[] {(byte) 0xff, (byte) 0xfe, 0x41});
        assertEquals(KeyFileException.Problem.READ_FAILED,
                assertThrows(KeyFileException.class, () -> KeyFiles.readKeyFile(key)).problem(), "not UTF-8");

        final Path blocked = dir.resolve("file-not-dir");
        Files.writeString(blocked, "x");
        final KeyFileException write = assertThrows(KeyFileException.class,
                () -> KeyFiles.writeKeyFile(blocked.resolve("fips.key"), NodeIdentity.generate()));
        assertEquals(KeyFileException.Problem.WRITE_FAILED, write.problem());
        assertTrue(write.getMessage().contains(blocked.resolve("fips.key").toString()));
    }

    @Test
    void configSecretAlwaysWinsAndWritesNothing() throws Exception {
        final NodeIdentity a = NodeIdentity.parse(HEX_A);
        for (final boolean persistent : new boolean[] {false, true}) {
            final KeyFiles.Resolved r = KeyFiles.resolve(a.nsec(), persistent, dir);
            assertEquals(KeyFiles.Source.CONFIG, r.source());
            assertArrayEquals(a.secretKey(), r.identity().secretKey());
            assertNull(r.keyFile());
        }
        assertEquals(KeyFiles.Source.CONFIG, KeyFiles.resolve(HEX_A, false, dir).source());
        assertFalse(Files.exists(dir.resolve("fips.key")));
        assertThrows(IdentityFormatException.class, () -> KeyFiles.resolve("nsec1nonsense", true, dir));
    }

    @Test
    void persistentModeGeneratesOnceThenReloads() throws Exception {
        final Path sub = dir.resolve("etc/fips");
        final KeyFiles.Resolved first = KeyFiles.resolve(null, true, sub);
        assertEquals(KeyFiles.Source.GENERATED, first.source());
        assertEquals(sub.resolve("fips.key"), first.keyFile());
        assertTrue(first.writeFailures().isEmpty());
        assertEquals(first.identity().npub() + "\n", Files.readString(sub.resolve("fips.pub")));
        if (posix) {
            assertEquals("rw-------", perms(sub.resolve("fips.key")));
        }

        Files.delete(sub.resolve("fips.pub"));
        final KeyFiles.Resolved second = KeyFiles.resolve(null, true, sub);
        assertEquals(KeyFiles.Source.KEY_FILE, second.source());
        assertArrayEquals(first.identity().secretKey(), second.identity().secretKey());
        assertEquals(first.identity().npub() + "\n", Files.readString(sub.resolve("fips.pub")), "pub rewritten");
    }

    @Test
    void persistentModeRefusesACorruptKeyFileInsteadOfReplacingIt() throws Exception {
        Files.writeString(dir.resolve("fips.key"), "not a key\n");
        final KeyFileException e = assertThrows(KeyFileException.class, () -> KeyFiles.resolve(null, true, dir));
        assertEquals(KeyFileException.Problem.CORRUPT, e.problem());
        assertEquals("not a key\n", Files.readString(dir.resolve("fips.key")), "left untouched");
        Files.writeString(dir.resolve("fips.key"), "");
        assertEquals(KeyFileException.Problem.EMPTY,
                assertThrows(KeyFileException.class, () -> KeyFiles.resolve(null, true, dir)).problem());
    }

    @Test
    void ephemeralModeGeneratesEveryTimeAndWritesNothing() throws Exception {
        final KeyFiles.Resolved one = KeyFiles.resolve(null, false, dir);
        final KeyFiles.Resolved two = KeyFiles.resolve(null, false, dir);
        assertEquals(KeyFiles.Source.EPHEMERAL, one.source());
        assertEquals(KeyFiles.Source.EPHEMERAL, two.source());
        assertNotEquals(one.identity().nodeAddr(), two.identity().nodeAddr());
        assertNull(two.keyFile());
        assertTrue(two.writeFailures().isEmpty());
        // A throwaway key on disk would be adopted by a later persistent start (issue 19).
        assertFalse(Files.exists(dir.resolve("fips.key")), "no fips.key");
        assertFalse(Files.exists(dir.resolve("fips.pub")), "no fips.pub");
    }

    @Test
    void ephemeralModeLeavesAPersistentNodesFilesAlone() throws Exception {
        final KeyFiles.Resolved kept = KeyFiles.resolve(null, true, dir);
        final KeyFiles.Resolved ephemeral = KeyFiles.resolve(null, false, dir);
        assertEquals(KeyFiles.Source.EPHEMERAL, ephemeral.source());
        assertArrayEquals(kept.identity().secretKey(), KeyFiles.readKeyFile(dir.resolve("fips.key")).secretKey());
        assertEquals(kept.identity().npub() + "\n", Files.readString(dir.resolve("fips.pub")));
        assertArrayEquals(kept.identity().secretKey(), KeyFiles.resolve(null, true, dir).identity().secretKey());
    }

    @Test
    void unwritableDirectoryStillYieldsAnIdentity() throws Exception {
        // A regular file where the directory should be: creating it and writing into it fail even for root.
        final Path notADir = dir.resolve("occupied");
        Files.writeString(notADir, "x");
        final KeyFiles.Resolved persistent = KeyFiles.resolve(null, true, notADir);
        assertEquals(KeyFiles.Source.EPHEMERAL, persistent.source());
        assertNull(persistent.keyFile());
        assertEquals(1, persistent.writeFailures().size(), "pub not attempted after the key failed");
        assertEquals(KeyFileException.Problem.WRITE_FAILED, persistent.writeFailures().get(0).problem());

        final KeyFiles.Resolved ephemeral = KeyFiles.resolve(null, false, notADir);
        assertEquals(KeyFiles.Source.EPHEMERAL, ephemeral.source());
        assertTrue(ephemeral.writeFailures().isEmpty(), "ephemeral mode writes nothing, so nothing fails");
    }

    @Test
    void directoryFollowsTheLastLoadedConfigFile() {
        assertEquals(KeyFiles.DEFAULT_DIRECTORY, KeyFiles.directoryFor(List.of()));
        assertEquals(Path.of("/home/u/.config/fips"), KeyFiles.directoryFor(
                List.of(Path.of("/etc/fips/fips.yaml"), Path.of("/home/u/.config/fips/fips.yaml"))));
        assertEquals(Path.of("fips.key"), KeyFiles.directoryFor(List.of(Path.of("fips.yaml")))
                .resolve(KeyFiles.KEY_FILE_NAME));
    }
}
