package net.fips.control.ctl;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import net.fips.control.acl.AclWatcher;
import net.fips.control.acl.PeerAcl;

/**
 * The {@code data} object of {@code show_acl}: the peer ACL as last loaded. Every key is always present.
 *
 * @param allowFile         path of the allow file
 * @param denyFile          path of the deny file
 * @param enforcementActive whether any rule is loaded
 * @param effectiveMode     {@code default_open}, {@code allowlist}, {@code denylist}, {@code allow_then_deny},
 *                          {@code deny_all}, {@code allow_then_deny_all} or {@code allow_all}
 * @param defaultDecision   {@code allow} or {@code deny} for a peer no rule names
 * @param allowAll          whether the allow file holds {@code ALL}
 * @param denyAll           whether the deny file holds {@code ALL}
 * @param allowFileEntries  allow-file entries as written (aliases or npubs)
 * @param denyFileEntries   deny-file entries as written
 * @param allowEntries      allow entries resolved to npubs
 * @param denyEntries       deny entries resolved to npubs
 */
@JsonPropertyOrder({"allow_file", "deny_file", "enforcement_active", "effective_mode", "default_decision",
        "allow_all", "deny_all", "allow_file_entries", "deny_file_entries", "allow_entries", "deny_entries"})
public record AclSnapshot(
        @JsonProperty("allow_file") String allowFile,
        @JsonProperty("deny_file") String denyFile,
        @JsonProperty("enforcement_active") boolean enforcementActive,
        @JsonProperty("effective_mode") String effectiveMode,
        @JsonProperty("default_decision") String defaultDecision,
        @JsonProperty("allow_all") boolean allowAll,
        @JsonProperty("deny_all") boolean denyAll,
        @JsonProperty("allow_file_entries") List<String> allowFileEntries,
        @JsonProperty("deny_file_entries") List<String> denyFileEntries,
        @JsonProperty("allow_entries") List<String> allowEntries,
        @JsonProperty("deny_entries") List<String> denyEntries) {

    /** Checks required fields and freezes the lists. */
    public AclSnapshot {
        Objects.requireNonNull(allowFile, "allowFile");
        Objects.requireNonNull(denyFile, "denyFile");
        Objects.requireNonNull(effectiveMode, "effectiveMode");
        Objects.requireNonNull(defaultDecision, "defaultDecision");
        allowFileEntries = allowFileEntries == null ? List.of() : List.copyOf(allowFileEntries);
        denyFileEntries = denyFileEntries == null ? List.of() : List.copyOf(denyFileEntries);
        allowEntries = allowEntries == null ? List.of() : List.copyOf(allowEntries);
        denyEntries = denyEntries == null ? List.of() : List.copyOf(denyEntries);
    }

    /**
     * The {@code show_acl} view of an ACL (built here, not in the acl package, so that acl does not depend on ctl).
     *
     * @param acl       the ACL
     * @param allowFile the allow file path to report
     * @param denyFile  the deny file path to report
     * @return the view
     */
    public static AclSnapshot of(final PeerAcl acl, final Path allowFile, final Path denyFile) {
        return new AclSnapshot(allowFile.toString(), denyFile.toString(), !acl.isEmpty(), acl.effectiveMode(),
                acl.defaultDecision(), acl.allowAll(), acl.denyAll(), acl.allowFileEntries(), acl.denyFileEntries(),
                acl.allowEntries(), acl.denyEntries());
    }

    /**
     * @param watcher the watcher
     * @return the {@code show_acl} view of the ACL in force
     */
    public static AclSnapshot of(final AclWatcher watcher) {
        return of(watcher.current(), watcher.allowFile(), watcher.denyFile());
    }
}
