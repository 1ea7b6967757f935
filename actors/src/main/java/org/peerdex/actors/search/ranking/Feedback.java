package org.peerdex.actors.search.ranking;

import java.util.Locale;

/** A user's judgement of one result. */
public enum Feedback {
    PROMOTE, DEMOTE, BOOKMARK, CLEAR;

    public static Feedback parse(String s) {
        if (s == null) throw new IllegalArgumentException("feedback 'action' is required: promote, demote, bookmark or clear");
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown feedback '" + s + "': promote, demote, bookmark or clear");
        }
    }
}
