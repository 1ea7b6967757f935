package org.peerdex.node.accounts;

import java.util.Locale;

/** A user of the peer: a name, a role, and the PBKDF2 hash of the password (never the password). */
public record Account(String name, Role role, String passwordHash) {
    /** What an account may do: admins everything, searchers search. */
    public enum Role {
        ADMIN, SEARCHER;

        public static Role parse(String s) {
            if (s == null) throw new IllegalArgumentException("role must be admin or searcher");
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("role must be admin or searcher, not '" + s + "'");
            }
        }

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Account {
        if (name == null || !name.matches("[A-Za-z0-9._@-]{1,64}")) {
            throw new IllegalArgumentException("account name must be 1-64 letters, digits or ._@-");
        }
        if (role == null) throw new IllegalArgumentException("role must be admin or searcher");
    }
}
