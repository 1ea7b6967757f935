package org.peerdex.node;

/** A peer could not start; the message is one clear line for the operator. */
public final class StartupException extends RuntimeException {
    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
