package org.peerdex.actors.search.query;

/** A query that cannot be answered as written; its message says what to fix (HTTP 400). */
public final class QuerySyntaxException extends IllegalArgumentException {
    public QuerySyntaxException(String message) {
        super(message);
    }
}
