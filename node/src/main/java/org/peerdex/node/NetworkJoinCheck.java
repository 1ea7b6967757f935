package org.peerdex.node;

import com.typesafe.config.Config;
import java.util.List;
import org.apache.pekko.cluster.ConfigValidation;
import org.apache.pekko.cluster.JoinConfigCompatChecker;

/**
 * The cluster's join check for private networks: a node may join only if its {@code peerdex.network-proof}
 * (an HMAC of the network name under the network secret, see NetworkProof) equals the members' one, so a peer
 * without the secret, or with another one, is refused before it becomes a member (and shuts down). Registered in
 * {@code pekko.cluster.configuration-compatibility-check.checkers} by PeerNode.
 */
public final class NetworkJoinCheck extends JoinConfigCompatChecker {
    static final String KEY = "peerdex.network-proof";

    @Override
    public scala.collection.immutable.Seq<String> requiredKeys() {
        return scala.jdk.javaapi.CollectionConverters.asScala(List.of(KEY)).toList();
    }

    @Override
    public ConfigValidation check(Config toCheck, Config actualConfig) {
        return JoinConfigCompatChecker.fullMatch(requiredKeys(), toCheck, actualConfig);
    }
}
