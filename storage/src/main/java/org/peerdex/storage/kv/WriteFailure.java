package org.peerdex.storage.kv;

/** Says why a store write failed, in words for an operator: a full disk by name, anything else by its cause. */
public final class WriteFailure {
    private WriteFailure() {}

    /** Whether the failure (or one of its causes) is the filesystem running out of space (ENOSPC). */
    public static boolean diskFull(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("No space left on device")) return true;
        }
        return false;
    }

    /** "the disk is full (No space left on device)", or the innermost cause's class and message. */
    public static String describe(Throwable e) {
        if (diskFull(e)) return "the disk is full (No space left on device)";
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return "a write failed: " + root.getClass().getSimpleName() + (root.getMessage() == null ? ""
                : ": " + root.getMessage());
    }
}
