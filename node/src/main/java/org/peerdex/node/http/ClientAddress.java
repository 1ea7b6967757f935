package org.peerdex.node.http;

import java.net.InetAddress;
import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;

/**
 * The address of the socket a request came in on. Not {@code extractClientIP}: that believes X-Forwarded-For and
 * X-Real-Ip, which any client can send (a remote client claiming 127.0.0.1 would pass the admin guard).
 */
final class ClientAddress {
    private ClientAddress() {}

    /** The peer address of the connection (needs pekko.http.server.remote-address-attribute = on). */
    static Route extract(Function<Optional<InetAddress>, Route> inner) {
        return extractRequest(req -> inner.apply(req.getAttribute(AttributeKeys.remoteAddress)
                .flatMap(a -> a.getAddress())));
    }
}
