package net.fips.control.acl;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code show_acl} data object (operator.md §2.3, §2.4; reference fixture {@code show_acl.json}).
 *
 * @param allowFile         {@code allow_file}
 * @param denyFile          {@code deny_file}
 * @param enforcementActive {@code enforcement_active}: any entry or wildcard loaded
 * @param effectiveMode     {@code effective_mode}
 * @param defaultDecision   {@code default_decision}
 * @param allowAll          {@code allow_all}
 * @param denyAll           {@code deny_all}
 * @param allowFileEntries  {@code allow_file_entries}: as written
 * @param denyFileEntries   {@code deny_file_entries}
 * @param allowEntries      {@code allow_entries}: resolved npubs
 * @param denyEntries       {@code deny_entries}
 */
public record AclSnapshot(String allowFile, String denyFile, boolean enforcementActive, String effectiveMode,
        String defaultDecision, boolean allowAll, boolean denyAll, List<String> allowFileEntries,
        List<String> denyFileEntries, List<String> allowEntries, List<String> denyEntries) {
    /** Checks nullness and freezes the lists. */
    public AclSnapshot {
        Objects.requireNonNull(allowFile, "allowFile");
        Objects.requireNonNull(denyFile, "denyFile");
        Objects.requireNonNull(effectiveMode, "effectiveMode");
        Objects.requireNonNull(defaultDecision, "defaultDecision");
        allowFileEntries = List.copyOf(allowFileEntries);
        denyFileEntries = List.copyOf(denyFileEntries);
        allowEntries = List.copyOf(allowEntries);
        denyEntries = List.copyOf(denyEntries);
    }

    /** @return the object with the wire's snake_case keys, ready for Jackson */
    public Map<String, Object> toJsonMap() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("allow_file", allowFile);
        m.put("deny_file", denyFile);
        m.put("enforcement_active", enforcementActive);
        m.put("effective_mode", effectiveMode);
        m.put("default_decision", defaultDecision);
        m.put("allow_all", allowAll);
        m.put("deny_all", denyAll);
        m.put("allow_file_entries", allowFileEntries);
        m.put("deny_file_entries", denyFileEntries);
        m.put("allow_entries", allowEntries);
        m.put("deny_entries", denyEntries);
        return m;
    }
}
