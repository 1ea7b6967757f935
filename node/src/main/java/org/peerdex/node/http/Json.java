package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.complete;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;

/** JSON in and out of the HTTP API; errors are {@code {"error": ...}} with a 4xx/5xx status. */
public final class Json {
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .findAndAddModules().build();

    private Json() {}

    public static Route ok(Object value) {
        return complete(StatusCodes.OK, value, Jackson.marshaller(MAPPER));
    }

    public static Route status(StatusCode status, Object value) {
        return complete(status, value, Jackson.marshaller(MAPPER));
    }

    public static Route error(StatusCode status, String message) {
        return complete(errorResponse(status, message));
    }

    public static HttpResponse errorResponse(StatusCode status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        body.put("status", status.intValue());
        try {
            return HttpResponse.create().withStatus(status)
                    .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, MAPPER.writeValueAsBytes(body)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
