package org.peerdex.node.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.ContentTypes;

/**
 * Error answers in the format the caller reads: the API's errors are JSON ({@code {"error": ...}}), but a feed
 * reader polling {@code /yacysearch.rss} cannot parse JSON, and Solr clients crash on anything but Solr's error
 * shape. Every error of those paths (the route's own, rejections, unknown paths, rate limits, timeouts) passes
 * through {@link #adapt} on its way out.
 */
final class CallerFormat {
    private CallerFormat() {}

    /** The response as the caller of {@code request} reads it: JSON errors of RSS and Solr paths rewritten. */
    static HttpResponse adapt(HttpRequest request, HttpResponse response) {
        if (response.status().intValue() < 400) return response;
        String path = request.getUri().path();
        boolean rss = path.equals("/yacysearch.rss");
        boolean solr = path.equals("/solr") || path.startsWith("/solr/");
        if (!rss && !solr) return response;
        Optional<String> message = jsonError(response.entity());
        if (message.isEmpty()) return response; // already in the caller's format (the route wrote it)
        int code = response.status().intValue();
        HttpEntity.Strict body;
        if (rss) {
            body = CompatRoutes.rssError(message.get(), CompatRoutes.base(request.getUri()));
        } else {
            String wt = request.getUri().query().get("wt").orElse("json").toLowerCase(Locale.ROOT);
            body = SolrRoutes.errorEntity(code, message.get(), wt, Map.of(), 0);
        }
        return response.withEntity(body);
    }

    /** The message of an API JSON error ({@code {"error": ...}}), if the entity is one. */
    private static Optional<String> jsonError(HttpEntity entity) {
        if (!(entity instanceof HttpEntity.Strict strict)
                || !entity.getContentType().equals(ContentTypes.APPLICATION_JSON)) {
            return Optional.empty();
        }
        try {
            JsonNode n = Json.MAPPER.readTree(strict.getData().toArray());
            JsonNode error = n == null ? null : n.get("error");
            return error != null && error.isTextual() ? Optional.of(error.asText()) : Optional.empty();
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }
}
