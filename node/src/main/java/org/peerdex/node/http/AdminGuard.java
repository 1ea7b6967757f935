package org.peerdex.node.http;

import java.net.InetAddress;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.HttpCredentials;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.node.Passwords;

import static org.apache.pekko.http.javadsl.server.Directives.extractCredentials;

/**
 * Admin endpoints answer only requests from a loopback address, unless an admin password is set; then any
 * client with HTTP Basic credentials {@code admin:PASSWORD} is let in (and loopback too).
 */
public final class AdminGuard {
    private final String passwordHash;

    public AdminGuard(String passwordHash) {
        this.passwordHash = passwordHash == null ? "" : passwordHash;
    }

    public Route admin(Supplier<Route> inner) {
        // the socket's address, not extractClientIP (which trusts a client's X-Forwarded-For)
        return ClientAddress.extract(ip -> extractCredentials(creds -> {
            boolean loopback = ip.map(InetAddress::isLoopbackAddress).orElse(false);
            if (loopback && passwordHash.isEmpty()) return inner.get();
            if (validPassword(creds)) return inner.get();
            if (loopback) return inner.get();
            return passwordHash.isEmpty()
                    ? Json.error(StatusCodes.FORBIDDEN, "admin endpoints answer only localhost; set an admin password")
                    : Json.error(StatusCodes.UNAUTHORIZED, "admin credentials required");
        }));
    }

    private boolean validPassword(Optional<HttpCredentials> creds) {
        return creds.filter(c -> c.scheme().equalsIgnoreCase("basic"))
                .map(c -> {
                    try {
                        String decoded = new String(java.util.Base64.getDecoder().decode(c.token()),
                                java.nio.charset.StandardCharsets.UTF_8);
                        int colon = decoded.indexOf(':');
                        return colon > 0 && decoded.substring(0, colon).equals("admin")
                                && Passwords.verify(decoded.substring(colon + 1), passwordHash);
                    } catch (IllegalArgumentException e) {
                        return false;
                    }
                }).orElse(false);
    }
}
