package org.peerdex.actors.search;

import java.util.Set;
import org.peerdex.actors.search.query.Query;

/**
 * One search as asked: the parsed query and how to answer it.
 *
 * @param resource      "local" (this peer's index) or "global" (also remote peers)
 * @param verify        "false" (stored text), "true" (re-fetch pages to confirm the words), "cacheonly" (only
 *                      results with stored text)
 * @param navigators    facet names to count (see {@link Navigators#ALL})
 * @param contentDomain "text", "image" or "all" (YaCy's contentdom)
 * @param federated     ask the federated sources too: null follows {@code resource} (global = yes)
 */
public record SearchRequest(Query query, int count, int offset, String resource, String verify,
                            Set<String> navigators, boolean explain, String contentDomain, Boolean federated) {
    public static final int MAX_COUNT = 100;
    public static final int MAX_OFFSET = 1000;

    public SearchRequest {
        if (count < 1 || count > MAX_COUNT) throw new IllegalArgumentException("count must be in 1.." + MAX_COUNT);
        if (offset < 0 || offset > MAX_OFFSET) throw new IllegalArgumentException("offset must be in 0.." + MAX_OFFSET);
        resource = resource == null || resource.isBlank() ? "local" : resource;
        if (!resource.equals("local") && !resource.equals("global")) {
            throw new IllegalArgumentException("resource must be local or global");
        }
        verify = verify == null || verify.isBlank() ? "false" : verify;
        if (!Set.of("true", "false", "cacheonly").contains(verify)) {
            throw new IllegalArgumentException("verify must be true, false or cacheonly");
        }
        navigators = navigators == null ? Set.of() : Set.copyOf(navigators);
        contentDomain = contentDomain == null || contentDomain.isBlank() ? "text" : contentDomain;
        if (!Set.of("text", "image", "all", "audio", "video", "app").contains(contentDomain)) {
            throw new IllegalArgumentException("contentdom must be text, image, audio, video, app or all");
        }
    }

    public SearchRequest(Query query, int count, int offset, String resource, String verify, Set<String> navigators,
                         boolean explain, String contentDomain) {
        this(query, count, offset, resource, verify, navigators, explain, contentDomain, null);
    }

    /** Whether the federated sources are asked (docs/federation.md). */
    public boolean federates() {
        return federated != null ? federated : resource.equals("global");
    }

    /** "true"/"false" → a flag, null/blank → null (follow resource); anything else is a 400. */
    public static Boolean parseFederated(String v) {
        if (v == null || v.isBlank()) return null;
        if (v.equalsIgnoreCase("true")) return Boolean.TRUE;
        if (v.equalsIgnoreCase("false")) return Boolean.FALSE;
        throw new IllegalArgumentException("federated must be true or false, not '" + v + "'");
    }

    public static SearchRequest of(Query q, int count) {
        return new SearchRequest(q, count, 0, "local", "false", Set.of(), false, "text");
    }
}
