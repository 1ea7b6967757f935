package org.peerdex.simulations.hostile;

import com.typesafe.config.Config;
import org.peerdex.protocol.ring.Admission;

/**
 * The open network's admission bounds (the node's {@link Admission} table) as the simulator's membership service applies them, with the defaults of
 * the node's {@code peerdex.peer} keys: at most {@code maxPerPrefix} peers per address prefix, and per arc of the
 * ring (2^{@code arcBits} arcs) at most max({@code maxPerArc}, 2x the even share).
 *
 * @param mode on, off, or auto (on when the scenario has hostile peers)
 */
public record AdmissionRules(String mode, int maxPerPrefix, int maxPerArc, int arcBits) {
    public static final AdmissionRules DEFAULTS = new AdmissionRules("auto", 4, 4, 6);

    public AdmissionRules {
        if (!mode.equals("on") && !mode.equals("off") && !mode.equals("auto")) {
            throw new IllegalArgumentException("admission mode is on, off or auto, not " + mode);
        }
        if (maxPerPrefix < 1 || maxPerArc < 1) throw new IllegalArgumentException("admission limits must be at least 1");
        if (arcBits < 0 || arcBits > 16) throw new IllegalArgumentException("admission arc-bits must be in 0..16");
    }

    public static AdmissionRules from(Config c) {
        return new AdmissionRules(c.getString("mode"), c.getInt("max-per-prefix"), c.getInt("max-per-arc"),
                c.getInt("arc-bits"));
    }

    /** The table that applies these bounds: the node's own {@link Admission}, with no bound on the directory. */
    public Admission table(int positionsPerPeer) {
        return new Admission(Integer.MAX_VALUE, maxPerPrefix, maxPerArc, arcBits, positionsPerPeer);
    }

    /** Whether the bounds apply in a run with {@code hostile} hostile peers. */
    public boolean applies(int hostile) {
        return mode.equals("on") || mode.equals("auto") && hostile > 0;
    }
}
