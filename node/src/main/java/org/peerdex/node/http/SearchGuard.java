package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.extractCredentials;
import static org.apache.pekko.http.javadsl.server.Directives.extractUnmatchedPath;
import static org.apache.pekko.http.javadsl.server.Directives.respondWithHeader;

import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.HttpChallenge;
import org.apache.pekko.http.javadsl.model.headers.WWWAuthenticate;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.node.accounts.Accounts;

/**
 * Intranet mode with {@code peerdex.accounts.required-for-search = on}: search endpoints answer only requests with
 * HTTP Basic credentials of an account (searcher or admin); others get 401 and a Basic challenge.
 */
public final class SearchGuard {
    private final Accounts accounts;
    private final boolean required;

    public SearchGuard(Accounts accounts, boolean required) {
        this.accounts = accounts;
        this.required = required;
    }

    public boolean required() {
        return required;
    }

    /** Paths (relative to where the guard sits) that are search endpoints; others pass to {@code inner} as they are. */
    static final List<String> GUARDED = List.of("/search", "/ranking", "/feedback", "/yacysearch",
            "/suggest.json", "/solr");

    public Route search(Supplier<Route> inner) {
        if (!required) return inner.get();
        return extractUnmatchedPath(p -> GUARDED.stream().noneMatch(p::startsWith) ? inner.get()
                : extractCredentials(creds -> accounts.authenticate(creds).isPresent() ? inner.get()
                        : challenge("an account is required to search this peer")));
    }

    static Route challenge(String message) {
        return respondWithHeader(WWWAuthenticate.create(HttpChallenge.createBasic("Peerdex")),
                () -> Json.error(StatusCodes.UNAUTHORIZED, message));
    }
}
