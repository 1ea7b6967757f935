package org.peerdex.node.http;

import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.ParsingErrorHandler;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.scaladsl.model.ErrorInfo;
import org.apache.pekko.http.scaladsl.model.StatusCode;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;

/**
 * Answers requests too malformed to reach the routes (bad request line, invalid percent-encoding, oversized URI or
 * headers) with the API's JSON error, not Pekko's plain-text one. Named in reference.conf
 * ({@code pekko.http.server.parsing.error-handler}).
 */
public final class JsonParsingErrorHandler extends ParsingErrorHandler {
    /** The singleton Pekko looks up for a class name ending in {@code $}; a plain instance works too. */
    public static final JsonParsingErrorHandler MODULE$ = new JsonParsingErrorHandler();

    @Override
    public HttpResponse handle(StatusCode status, ErrorInfo info, LoggingAdapter log, ServerSettings settings) {
        log.debug("malformed request: {}", info.formatPretty());
        String summary = info.summary() == null || info.summary().isEmpty() ? status.reason() : info.summary();
        // not routed, so the boundary's headers are added here: an error page is a page too
        return WebBoundary.withSecurityHeaders(Json.errorResponse(StatusCodes.get(status.intValue()), clip(summary)));
    }

    private static String clip(String s) {
        // the summary may quote the offending input; keep the answer small
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
