package org.peerdex.node;

import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * What the peer's mode ({@code --mode p2p|intranet|portal}) means for the rest of the code: whether the DHT runs,
 * whether search needs an account, whether loopback is admin, and which sites a portal may crawl.
 *
 * @param searchNeedsAccount intranet mode with {@code peerdex.accounts.required-for-search}
 * @param loopbackAdmin      requests from loopback pass the admin guard ({@code peerdex.accounts.loopback-admin})
 * @param portalSites        host names a portal crawls (subdomains included); empty = no limit
 */
public record ModePolicy(NodeConfig.Mode mode, boolean searchNeedsAccount, boolean loopbackAdmin,
                         List<String> portalSites) {

    public static ModePolicy of(NodeConfig nc) {
        var c = nc.raw().getConfig("peerdex");
        boolean required = c.hasPath("accounts.required-for-search") && c.getBoolean("accounts.required-for-search");
        boolean loopback = !c.hasPath("accounts.loopback-admin") || c.getBoolean("accounts.loopback-admin");
        List<String> sites = c.hasPath("portal.sites") ? c.getStringList("portal.sites").stream()
                .map(s -> s.trim().toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty()).toList() : List.of();
        return new ModePolicy(nc.mode(), nc.mode() == NodeConfig.Mode.INTRANET && required, loopback, sites);
    }

    /** What replaced the shared network secret, said wherever one is still given. */
    static final String SECRET_RETIRED = "the network secret is retired (a shared secret proves nothing once it has "
            + "been seen, and its proof could be replayed): a private network is a Pekko cluster over mutual TLS with "
            + "its own CA. Create the CA once with 'peerdex network init CA-DIR --network NAME', give each peer its "
            + "certificate with 'peerdex network admit CA-DIR PEER-NAME', and start each peer with --cluster-tls "
            + "PEER-DIR (docs/security.md, \"Trust domains\"); remove --network-secret / peerdex.network-secret / "
            + "PEERDEX_NETWORK_SECRET";

    /**
     * A network secret is refused with {@link #SECRET_RETIRED}. Intranet mode is a private network: it needs its
     * own network name (not the public "peerdex"); it runs as a cluster (a trust domain), which beyond loopback
     * takes only peers with a certificate of the network's CA (mutual TLS, see PeerNode).
     */
    public static void checkNetwork(NodeConfig nc) {
        var c = nc.raw().getConfig("peerdex");
        String secret = c.hasPath("network-secret") ? c.getString("network-secret") : "";
        if (!secret.isEmpty()) throw new IllegalArgumentException(SECRET_RETIRED);
        if (nc.mode() != NodeConfig.Mode.INTRANET) return;
        if ("peerdex".equals(nc.network())) {
            throw new IllegalArgumentException("intranet mode needs a private network: --network NAME (not 'peerdex'), "
                    + "and beyond this machine a certificate of the network's CA (--cluster-tls PEER-DIR; "
                    + "'peerdex network init' and 'peerdex network admit' make them)");
        }
    }

    /** The DHT (remote search, replication) runs in p2p and intranet mode; a portal answers from its own index. */
    public boolean dht() {
        return mode != NodeConfig.Mode.PORTAL;
    }

    /** May the crawler fetch this URL? A portal only crawls its configured sites; other modes ask the blacklist. */
    public boolean crawlAllowed(String url) {
        if (mode != NodeConfig.Mode.PORTAL || portalSites.isEmpty()) return true;
        String host;
        try {
            host = URI.create(url).getHost();
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (host == null) return false;
        String h = host.toLowerCase(Locale.ROOT);
        for (String s : portalSites) if (h.equals(s) || h.endsWith("." + s)) return true;
        return false;
    }

    /** Intranet peers may crawl private address ranges (10/8, 192.168/16, ...); the others should not. */
    public boolean privateRangesAllowed() {
        return mode == NodeConfig.Mode.INTRANET;
    }
}
