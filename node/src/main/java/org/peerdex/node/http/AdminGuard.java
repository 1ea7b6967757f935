package org.peerdex.node.http;

import java.net.InetAddress;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.HttpCredentials;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.node.Passwords;
import org.peerdex.node.accounts.Account;
import org.peerdex.node.accounts.Accounts;

import static org.apache.pekko.http.javadsl.server.Directives.extractCredentials;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;

/**
 * Admin endpoints answer only requests from a loopback address, unless an admin password is set; then any
 * client with HTTP Basic credentials {@code admin:PASSWORD} is let in (and loopback too). An account with the
 * admin role is let in from anywhere; with {@code peerdex.accounts.loopback-admin = off} loopback alone is not
 * enough. State-changing requests a browser sends from another origin are refused ({@link SameOrigin}, CSRF).
 */
public final class AdminGuard {
    private final String passwordHash;
    private final Accounts accounts;
    private final boolean loopbackAdmin;

    public AdminGuard(String passwordHash) {
        this(passwordHash, null, true);
    }

    public AdminGuard(String passwordHash, Accounts accounts, boolean loopbackAdmin) {
        this.passwordHash = passwordHash == null ? "" : passwordHash;
        this.accounts = accounts;
        this.loopbackAdmin = loopbackAdmin;
    }

    public Route admin(Supplier<Route> inner) {
        // the socket's address, not extractClientIP (which trusts a client's X-Forwarded-For)
        return extractRequest(req -> ClientAddress.extract(ip -> extractCredentials(creds -> {
            Optional<String> crossOrigin = SameOrigin.problem(req);
            if (crossOrigin.isPresent()) return Json.error(StatusCodes.FORBIDDEN, crossOrigin.get());
            boolean loopback = ip.map(InetAddress::isLoopbackAddress).orElse(false);
            if (loopback && loopbackAdmin && passwordHash.isEmpty()) return inner.get();
            if (validPassword(creds)) return inner.get();
            Optional<Account> account = accounts == null ? Optional.empty() : accounts.authenticate(creds);
            if (account.isPresent() && account.get().role() == Account.Role.ADMIN) return inner.get();
            if (loopback && loopbackAdmin) return inner.get();
            if (account.isPresent()) {
                return Json.error(StatusCodes.FORBIDDEN, "account " + account.get().name() + " is not an admin");
            }
            if (passwordHash.isEmpty() && (accounts == null || accounts.isEmpty())) {
                return Json.error(StatusCodes.FORBIDDEN, "admin endpoints answer only localhost; set an admin password");
            }
            return SearchGuard.challenge("admin credentials required");
        })));
    }

    private boolean validPassword(Optional<HttpCredentials> creds) {
        if (passwordHash.isEmpty()) return false;
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
