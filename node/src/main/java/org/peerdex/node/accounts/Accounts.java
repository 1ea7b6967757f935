package org.peerdex.node.accounts;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.http.javadsl.model.headers.HttpCredentials;
import org.peerdex.node.Passwords;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/**
 * The peer's accounts, stored in LevelDB (settings keyspace, {@code account/NAME} → {@code role$pbkdf2-hash}), and
 * HTTP Basic authentication against them. A PBKDF2 check costs tens of milliseconds, so successful checks are
 * remembered by a SHA-256 of the credentials (never the password itself) until the account changes.
 */
public final class Accounts {
    private static final String PREFIX = "account/";
    private final KeyValueStore store;
    private final Map<String, String> verified = new ConcurrentHashMap<>();

    public Accounts(KeyValueStore store) {
        this.store = store;
    }

    public List<Account> all() {
        List<Account> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(key(""))) {
            while (c.next()) {
                String name = new String(c.key(), 1 + PREFIX.length(), c.key().length - 1 - PREFIX.length(),
                        StandardCharsets.UTF_8);
                decode(name, c.value()).ifPresent(out::add);
            }
        }
        return out;
    }

    public Optional<Account> get(String name) {
        return store.get(key(name)).flatMap(v -> decode(name, v));
    }

    /** Creates or replaces an account; the password is hashed here. */
    public Account put(String name, String password, Account.Role role) {
        if (password == null || password.length() < 8) throw new IllegalArgumentException("password must have 8 characters or more");
        Account a = new Account(name, role, Passwords.hash(password));
        store.put(key(name), (role.key() + "$" + a.passwordHash()).getBytes(StandardCharsets.UTF_8));
        verified.clear();
        return a;
    }

    public boolean delete(String name) {
        boolean had = get(name).isPresent();
        store.delete(key(name));
        verified.clear();
        return had;
    }

    public boolean isEmpty() {
        try (KeyValueStore.Cursor c = store.scanPrefix(key(""))) {
            return !c.next();
        }
    }

    /** The account the Basic credentials name, if the password is right. */
    public Optional<Account> authenticate(Optional<HttpCredentials> creds) {
        if (creds.isEmpty() || !creds.get().scheme().equalsIgnoreCase("basic")) return Optional.empty();
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(creds.get().token()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) return Optional.empty();
        String name = decoded.substring(0, colon);
        Optional<Account> a;
        try {
            a = get(name);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (a.isEmpty()) return Optional.empty();
        String fingerprint = sha256(decoded);
        if (fingerprint.equals(verified.get(name))) return a;
        if (!Passwords.verify(decoded.substring(colon + 1), a.get().passwordHash())) return Optional.empty();
        verified.put(name, fingerprint);
        return a;
    }

    private static Optional<Account> decode(String name, byte[] value) {
        String s = new String(value, StandardCharsets.UTF_8);
        int d = s.indexOf('$');
        if (d < 0) return Optional.empty();
        try {
            return Optional.of(new Account(name, Account.Role.parse(s.substring(0, d)), s.substring(d + 1)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static byte[] key(String name) {
        return Keys.of(Keyspace.SETTINGS, (PREFIX + name).getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(String s) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
