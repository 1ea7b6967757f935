package org.peerdex.simulations.churn;

/** One change of a peer's presence at a simulated time. */
public record ChurnEvent(long atMicros, int peer, Kind kind) {
    /** Crash: gone without a word (its data stays on its disk); leave: said goodbye first; join: back again. */
    public enum Kind { CRASH, LEAVE, JOIN }
}
