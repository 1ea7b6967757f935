package org.peerdex.node.http;

import java.util.Optional;
import java.util.function.Function;
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
 * Admin endpoints (docs/security.md, "Web boundaries"). Let in: HTTP Basic credentials {@code admin:PASSWORD} when
 * an admin password is set, or of an account with the admin role. A direct connection from loopback is let in
 * without credentials only while no admin password is set, {@code peerdex.accounts.loopback-admin} is on, and the
 * peer can only be reached from this machine: when it listens beyond loopback or sits behind a trusted reverse proxy
 * ({@link WebBoundary#adminNeedsCredentials}), admin needs credentials, and without an admin password or admin
 * account it answers 403 saying so (the peer still starts and serves search). Requests through a trusted proxy are
 * never loopback. State-changing requests a browser sends from another origin are refused ({@link SameOrigin}).
 */
public final class AdminGuard {
    private final String passwordHash;
    private final Accounts accounts;
    private final boolean loopbackAdmin;
    private final WebBoundary boundary;

    public AdminGuard(String passwordHash, Accounts accounts, boolean loopbackAdmin, WebBoundary boundary) {
        this.passwordHash = passwordHash == null ? "" : passwordHash;
        this.accounts = accounts;
        this.loopbackAdmin = loopbackAdmin;
        this.boundary = boundary;
    }

    /**
     * Whether the caller would pass {@link #admin}, told to {@code inner} instead of refusing: a page shows its admin
     * controls only to an admin, without a credentials prompt for everyone else.
     */
    public Route isAdmin(Function<Boolean, Route> inner) {
        return extractRequest(req -> boundary.clients().extract(client -> extractCredentials(creds -> {
            if (SameOrigin.problem(req, boundary.hosts()).isPresent()) return inner.apply(false);
            if (validPassword(creds)) return inner.apply(true);
            Optional<Account> account = accounts == null ? Optional.empty() : accounts.authenticate(creds);
            if (account.isPresent()) return inner.apply(account.get().role() == Account.Role.ADMIN);
            return inner.apply(client.loopback() && loopbackAdmin && passwordHash.isEmpty()
                    && boundary.adminNeedsCredentials().isEmpty());
        })));
    }

    public Route admin(Supplier<Route> inner) {
        return extractRequest(req -> boundary.clients().extract(client -> extractCredentials(creds -> {
            Optional<String> crossOrigin = SameOrigin.problem(req, boundary.hosts());
            if (crossOrigin.isPresent()) return Json.error(StatusCodes.FORBIDDEN, crossOrigin.get());
            if (validPassword(creds)) return inner.get();
            Optional<Account> account = accounts == null ? Optional.empty() : accounts.authenticate(creds);
            if (account.isPresent() && account.get().role() == Account.Role.ADMIN) return inner.get();
            Optional<String> exposed = boundary.adminNeedsCredentials();
            if (client.loopback() && loopbackAdmin && passwordHash.isEmpty() && exposed.isEmpty()) return inner.get();
            if (account.isPresent()) {
                return Json.error(StatusCodes.FORBIDDEN, "account " + account.get().name() + " is not an admin");
            }
            if (passwordHash.isEmpty() && (accounts == null || accounts.isEmpty())) {
                return Json.error(StatusCodes.FORBIDDEN, exposed.isPresent()
                        ? "admin endpoints are closed: " + exposed.get() + ", so admin needs a password; start the "
                                + "peer with --admin-password (or peerdex.admin.password-hash)"
                        : "admin endpoints answer only localhost; set an admin password");
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
