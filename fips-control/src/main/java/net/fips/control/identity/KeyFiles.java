package net.fips.control.identity;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * The identity key files, written and resolved as the reference does.
 *
 * <ul>
 *   <li>{@code fips.key}: the nsec followed by a newline, mode 0600. On read the content is trimmed of
 *       whitespace and may be an nsec or 64 hex digits; empty or undecodable content is an error.</li>
 *   <li>{@code fips.pub}: the npub followed by a newline, mode 0644.</li>
 *   <li>Both live in the directory of the highest-priority config file that was loaded, else {@code /etc/fips}.
 *       </li>
 * </ul>
 * {@link #resolve} picks the identity: a secret given in config always wins; with {@code persistent} an existing
 * {@code fips.key} is loaded (a corrupt one is an error, never silently replaced) and a missing one is generated
 * and saved; without it a fresh key is generated on every start and kept in memory only.
 *
 * <p>Two deliberate differences from the reference:
 * <ul>
 *   <li>The reference applies 0600 only when it creates {@code fips.key}, so a rewritten file keeps looser
 *       permissions; here an existing key file is narrowed to 0600 before the secret is written.</li>
 *   <li>The reference also writes both files in ephemeral mode, "for visibility". A throwaway key left in
 *       {@code /etc/fips/fips.key} was later adopted as the node's identity by a persistent start (the
 *       package's), and an ephemeral run overwrote a persistent node's key; here ephemeral mode writes neither
 *       file (docs/adr/0023-ephemeral-identity-in-memory.md). The npub is in the startup log and
 *       {@code fipsctl show status}.</li>
 * </ul>
 */
public final class KeyFiles {
    /** Name of the secret key file. */
    public static final String KEY_FILE_NAME = "fips.key";
    /** Name of the public key file. */
    public static final String PUB_FILE_NAME = "fips.pub";
    /** Where the files go when no config file was loaded. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/etc/fips");
    /** Permissions of {@code fips.key}: rw-------. */
    public static final Set<PosixFilePermission> KEY_FILE_PERMISSIONS = PosixFilePermissions.fromString("rw-------");
    /** Permissions of {@code fips.pub}: rw-r--r--. */
    public static final Set<PosixFilePermission> PUB_FILE_PERMISSIONS = PosixFilePermissions.fromString("rw-r--r--");

    /** Where a resolved identity came from. */
    public enum Source {
        /** A secret given in the config ({@code node.identity.nsec}). */
        CONFIG,
        /** Loaded from an existing {@code fips.key} (persistent mode). */
        KEY_FILE,
        /** Generated and saved to a new {@code fips.key} (persistent mode). */
        GENERATED,
        /** Generated for this run only: the default mode, or persistent mode when saving failed. */
        EPHEMERAL
    }

    /**
     * The outcome of {@link #resolve}.
     *
     * @param identity      the identity to run with
     * @param source        where it came from
     * @param keyFile       the key file it was loaded from or saved to ({@code KEY_FILE}, {@code GENERATED}),
     *                      else null
     * @param writeFailures best-effort writes that failed (the node runs anyway); worth a log line each
     */
    public record Resolved(NodeIdentity identity, Source source, Path keyFile, List<KeyFileException> writeFailures) {
        /** Freezes the failure list. */
        public Resolved {
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(source, "source");
            writeFailures = List.copyOf(writeFailures);
        }
    }

    private KeyFiles() {
    }

    /**
     * @param loadedConfigFiles config files actually loaded, lowest priority first
     * @return the directory of the last one, or {@link #DEFAULT_DIRECTORY} when none was loaded
     */
    public static Path directoryFor(final List<Path> loadedConfigFiles) {
        if (loadedConfigFiles.isEmpty()) {
            return DEFAULT_DIRECTORY;
        }
        final Path parent = loadedConfigFiles.get(loadedConfigFiles.size() - 1).getParent();
        return parent != null ? parent : Path.of("");
    }

    /**
     * Reads {@code fips.key} text: the whole file, trimmed of leading and trailing whitespace.
     *
     * @param path the key file
     * @return the trimmed, non-empty content (an nsec or hex secret)
     * @throws KeyFileException {@code READ_FAILED} or {@code EMPTY}
     */
    public static String readKeyText(final Path path) throws KeyFileException {
        final String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Files.readAllBytes(path)))
                    .toString();
        } catch (final CharacterCodingException e) {
            throw new KeyFileException(path, KeyFileException.Problem.READ_FAILED, "not valid UTF-8 text", e);
        } catch (final IOException | SecurityException e) {
            throw new KeyFileException(path, KeyFileException.Problem.READ_FAILED, "cannot read: " + describe(e), e);
        }
        final String trimmed = trimUnicodeWhitespace(text);
        if (trimmed.isEmpty()) {
            throw new KeyFileException(path, KeyFileException.Problem.EMPTY, "file is empty", null);
        }
        return trimmed;
    }

    /**
     * Loads the identity stored in a key file.
     *
     * @param path the key file
     * @return the identity
     * @throws KeyFileException {@code READ_FAILED}, {@code EMPTY} or {@code CORRUPT} (the cause says why)
     */
    public static NodeIdentity readKeyFile(final Path path) throws KeyFileException {
        final String text = readKeyText(path);
        try {
            return NodeIdentity.parse(text);
        } catch (final IdentityFormatException e) {
            throw new KeyFileException(path, KeyFileException.Problem.CORRUPT, e.getMessage(), e);
        }
    }

    /**
     * Writes {@code identity}'s nsec and a newline to {@code path}, creating it with mode 0600 or truncating it
     * (an existing file is first narrowed to 0600).
     *
     * @param path     the key file
     * @param identity the identity to save
     * @throws KeyFileException {@code WRITE_FAILED}
     */
    public static void writeKeyFile(final Path path, final NodeIdentity identity) throws KeyFileException {
        write(path, identity.nsec() + "\n", KEY_FILE_PERMISSIONS, true);
    }

    /**
     * Writes an npub and a newline to {@code path}, creating it with mode 0644 or truncating it (an existing
     * file keeps its mode, as in the reference).
     *
     * @param path the public key file
     * @param npub the npub
     * @throws KeyFileException {@code WRITE_FAILED}
     */
    public static void writePubFile(final Path path, final String npub) throws KeyFileException {
        write(path, npub + "\n", PUB_FILE_PERMISSIONS, false);
    }

    /**
     * Picks this node's identity (see the class comment).
     *
     * @param configSecret {@code node.identity.nsec} from config (nsec or hex), or null when absent
     * @param persistent   {@code node.identity.persistent}
     * @param directory    where {@code fips.key} and {@code fips.pub} live (see {@link #directoryFor})
     * @return the identity, its source and any best-effort writes that failed
     * @throws IdentityFormatException when {@code configSecret} does not decode
     * @throws KeyFileException        in persistent mode, when an existing key file cannot be read or is empty
     *                                 or corrupt
     */
    public static Resolved resolve(final String configSecret, final boolean persistent, final Path directory)
            throws IdentityFormatException, KeyFileException {
        if (configSecret != null) {
            return new Resolved(NodeIdentity.parse(configSecret), Source.CONFIG, null, List.of());
        }
        final Path keyPath = directory.resolve(KEY_FILE_NAME);
        final Path pubPath = directory.resolve(PUB_FILE_NAME);
        final List<KeyFileException> failures = new ArrayList<>();

        if (persistent && Files.exists(keyPath)) {
            final NodeIdentity identity = readKeyFile(keyPath);
            tryWritePub(pubPath, identity, failures);
            return new Resolved(identity, Source.KEY_FILE, keyPath, failures);
        }

        final NodeIdentity identity = NodeIdentity.generate();
        if (!persistent) {
            // In memory only, unlike the reference (see the class comment): nothing on disk outlives this run.
            return new Resolved(identity, Source.EPHEMERAL, null, failures);
        }
        try {
            Files.createDirectories(directory);
        } catch (final IOException | SecurityException e) {
            // Ignored as the reference does: the key write below fails and reports the real problem.
        }
        boolean saved = false;
        try {
            writeKeyFile(keyPath, identity);
            saved = true;
        } catch (final KeyFileException e) {
            failures.add(e);
        }
        // As in the reference, fips.pub is written only after fips.key was.
        if (saved) {
            tryWritePub(pubPath, identity, failures);
            return new Resolved(identity, Source.GENERATED, keyPath, failures);
        }
        return new Resolved(identity, Source.EPHEMERAL, null, failures);
    }

    private static void tryWritePub(final Path pubPath, final NodeIdentity identity,
            final List<KeyFileException> failures) {
        try {
            writePubFile(pubPath, identity.npub());
        } catch (final KeyFileException e) {
            failures.add(e);
        }
    }

    private static void write(final Path path, final String text, final Set<PosixFilePermission> perms,
            final boolean narrowExisting) throws KeyFileException {
        final boolean posix = path.getFileSystem().supportedFileAttributeViews().contains("posix");
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        try {
            SeekableByteChannel ch;
            try {
                final FileAttribute<?>[] attrs = posix
                        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)}
                        : new FileAttribute<?>[0];
                ch = Files.newByteChannel(path, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                        attrs);
                // The creation mode is filtered by the umask; set it exactly so the file is always as documented.
                if (posix) {
                    Files.setPosixFilePermissions(path, perms);
                }
            } catch (final FileAlreadyExistsException e) {
                if (posix && narrowExisting) {
                    Files.setPosixFilePermissions(path, perms);
                }
                ch = Files.newByteChannel(path, EnumSet.of(StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING));
            }
            try (SeekableByteChannel out = ch) {
                final ByteBuffer buf = ByteBuffer.wrap(bytes);
                while (buf.hasRemaining()) {
                    out.write(buf);
                }
            }
        } catch (final IOException | SecurityException | UnsupportedOperationException e) {
            throw new KeyFileException(path, KeyFileException.Problem.WRITE_FAILED, "cannot write: " + describe(e), e);
        }
    }

    /** Why a file operation failed, in words (never an exception class name: the operator reads this). */
    private static String describe(final Exception e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException || e instanceof SecurityException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        if (e instanceof UnsupportedOperationException) {
            return "the file system does not support POSIX permissions";
        }
        return e.getMessage() == null || e.getMessage().isBlank() ? "input/output error" : e.getMessage();
    }

    /** Trims what Rust's {@code str::trim} trims: characters with the Unicode White_Space property. */
    static String trimUnicodeWhitespace(final String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isUnicodeWhitespace(s.charAt(start))) {
            start++;
        }
        while (end > start && isUnicodeWhitespace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    private static boolean isUnicodeWhitespace(final char c) {
        return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680
                || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f
                || c == 0x3000;
    }
}
